package io.jkubelet.agent.network;

import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.runtime.ForwardingRuntime;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.SandboxStatus;
import io.jkubelet.agent.timeline.Phase;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.util.Errors;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime with the network plugin in its sandbox calls, as dockershim's {@code RunPodSandbox},
 * {@code StopPodSandbox} and {@code PodSandboxStatus}:
 *
 * <ul>
 *   <li>a pod-network sandbox is created with no network of the runtime's, started, and then
 *       attached; if that fails, it is detached, stopped and removed, and the error is the plugin's
 *       own message;
 *   <li>it is detached before it is stopped, and before it is removed when it still has an
 *       attachment; a failing DEL is logged and never keeps the pod from stopping (the attachment
 *       stays for the plugin's reconciliation);
 *   <li>its IPs are the ADD result's, read from memory, so a status never runs a plugin.
 * </ul>
 *
 * <p>Host-network sandboxes pass through untouched. Thread-safe as the runtime it wraps.
 */
final class NetworkedRuntime extends ForwardingRuntime {
  private static final Logger log = LoggerFactory.getLogger(NetworkedRuntime.class);

  private final CniPlugin plugin;
  private final EventRecorder recorder;
  private final PodTimelines timelines;

  NetworkedRuntime(
      Runtime delegate, CniPlugin plugin, EventRecorder recorder, PodTimelines timelines) {
    super(delegate);
    this.plugin = plugin;
    this.recorder = recorder;
    this.timelines = timelines;
  }

  @Override
  public String runPodSandbox(SandboxConfig config) {
    if (config.network().hostNetwork()) {
      return delegate.runPodSandbox(config);
    }
    Optional<String> notReady = plugin.status();
    if (notReady.isPresent()) {
      throw new RuntimeError(RuntimeError.Kind.START, "network is not ready: " + notReady.get());
    }
    warnUnmappedHostPorts(config);
    String id = delegate.runPodSandbox(config.onPluginNetwork());
    String netns = "";
    PodTimelines.Span span = timelines.begin(config.pod().uid(), Phase.NETWORK, null);
    try {
      netns = delegate.sandboxNetNs(id);
      if (netns.isEmpty()) {
        throw new CniException("the sandbox exited before its network was set up");
      }
      plugin.setUp(config, id, netns);
      span.end();
      return id;
    } catch (CniException | RuntimeException e) {
      span.fail(e.getMessage());
      // Whatever failed, the sandbox is not left running without its network.
      String message =
          "failed to set up sandbox container \""
              + id
              + "\" network for pod \""
              + config.pod().name()
              + "\": networkPlugin "
              + plugin.name()
              + " failed to set up pod \""
              + config.pod().name()
              + "_"
              + config.pod().namespace()
              + "\" network: "
              + e.getMessage();
      try {
        plugin.tearDown(id, netns);
      } catch (CniException | RuntimeException t) {
        message +=
            "; failed to clean up sandbox container \""
                + id
                + "\" network for pod \""
                + config.pod().name()
                + "\": "
                + t.getMessage();
      }
      try {
        delegate.stopPodSandbox(id, Duration.ZERO);
        delegate.removePodSandbox(id);
      } catch (RuntimeException t) {
        log.warn(
            "Network: cannot remove the sandbox {} whose set-up failed: {}", id, t.getMessage());
      }
      throw Errors.withCause(new RuntimeError(RuntimeError.Kind.START, message), e);
    }
  }

  /** Upstream drops a host port silently when no plugin maps it (kubernetes#31307). */
  private void warnUnmappedHostPorts(SandboxConfig config) {
    if (config.network().ports().stream().anyMatch(p -> p.hostPort() > 0)
        && !plugin.mapsHostPorts()) {
      PodRef pod = config.pod();
      recorder.eventf(
          Refs.pod(pod.namespace(), pod.name(), pod.uid()),
          EventType.Warning,
          Reasons.HOST_PORT_IGNORED,
          "The pod asks for host ports %s, but the node's CNI network has no portMappings"
              + " capability: they are not mapped",
          config.network().ports().stream()
              .filter(p -> p.hostPort() > 0)
              .map(p -> Integer.toString(p.hostPort()))
              .toList());
    }
  }

  @Override
  public void stopPodSandbox(String sandboxId, Duration grace) {
    detach(sandboxId, delegate.sandboxNetNs(sandboxId));
    delegate.stopPodSandbox(sandboxId, grace);
  }

  @Override
  public void removePodSandbox(String sandboxId) {
    if (plugin.attached(sandboxId)) {
      detach(sandboxId, delegate.sandboxNetNs(sandboxId));
    }
    delegate.removePodSandbox(sandboxId);
  }

  private void detach(String sandboxId, String netns) {
    try {
      plugin.tearDown(sandboxId, netns);
    } catch (CniException e) {
      log.warn(
          "Network: networkPlugin {} failed to teardown sandbox {}'s network (retried in the"
              + " background): {}",
          plugin.name(),
          sandboxId,
          e.getMessage());
    }
  }

  @Override
  public PodStatus podStatus(PodRef pod) {
    return withIps(delegate.podStatus(pod));
  }

  @Override
  public PodStatus podStatus(PodRef pod, List<String> containerIds) {
    return withIps(delegate.podStatus(pod, containerIds));
  }

  private PodStatus withIps(PodStatus s) {
    if (s.sandboxes().isEmpty()) {
      return s;
    }
    List<SandboxStatus> sandboxes =
        s.sandboxes().stream()
            .map(
                sb -> sb.ready() && plugin.attached(sb.id()) ? sb.withIps(plugin.ips(sb.id())) : sb)
            .toList();
    return new PodStatus(s.pod(), sandboxes, s.containers());
  }
}
