package io.jkubelet.agent.metrics;

import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.runtime.ForwardingRuntime;
import io.jkubelet.agent.runtime.ImageSummary;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.PullObserver;
import io.jkubelet.agent.runtime.RegistryAuth;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.StreamHandle;
import io.jkubelet.agent.runtime.StreamIo;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A {@link Runtime} that counts and times every call of the one it wraps, as upstream's {@code
 * instrumentedRuntimeService} ({@code pkg/kubelet/kuberuntime/instrumented_services.go}): {@code
 * kubelet_runtime_operations_total}, {@code kubelet_runtime_operations_duration_seconds} and {@code
 * kubelet_runtime_operations_errors_total}, by {@code operation_type}. Operations carry upstream's
 * CRI names where one call maps to one CRI call ({@code create_container}, {@code exec_sync},
 * {@code pull_image}, ...); {@code pod_status} (one pod's sandboxes and containers inspected) is
 * jkubelet's own. An error is a {@link RuntimeException} from the call; an exec whose command fails
 * is a result, not an error, as upstream. {@link #type()}, the sandbox's network namespace, the
 * event watch and the log streams (streams, not operations: upstream reads log files itself) are
 * passed through uncounted ({@link ForwardingRuntime}).
 *
 * <p>Thread-safe if the wrapped runtime is. Durations read the injected clock.
 */
public final class InstrumentedRuntime extends ForwardingRuntime {
  private final KubeletMetrics metrics;
  private final Clock clock;

  public InstrumentedRuntime(Runtime delegate, KubeletMetrics metrics, Clock clock) {
    super(Objects.requireNonNull(delegate, "delegate"));
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  private <T> T record(String operation, Supplier<T> call) {
    Instant start = clock.instant();
    try {
      return call.get();
    } catch (RuntimeException e) {
      metrics.runtimeErrors.labelValues(operation).inc();
      throw e;
    } finally {
      metrics.runtimeOperations.labelValues(operation).inc();
      metrics
          .runtimeDuration
          .labelValues(operation)
          .observe(KubeletMetrics.seconds(start, clock.instant()));
    }
  }

  private void run(String operation, Runnable call) {
    record(
        operation,
        () -> {
          call.run();
          return null;
        });
  }

  @Override
  public String version() {
    return record("version", delegate::version);
  }

  @Override
  public List<ContainerSummary> listContainers() {
    return record("list_containers", delegate::listContainers);
  }

  @Override
  public PodStatus podStatus(PodRef pod) {
    return record("pod_status", () -> delegate.podStatus(pod));
  }

  @Override
  public List<ContainerSummary> listContainers(PodRef pod) {
    return record("list_containers", () -> delegate.listContainers(pod));
  }

  @Override
  public PodStatus podStatus(PodRef pod, List<String> containerIds) {
    return record("pod_status", () -> delegate.podStatus(pod, containerIds));
  }

  @Override
  public String runPodSandbox(SandboxConfig config) {
    return record("run_podsandbox", () -> delegate.runPodSandbox(config));
  }

  @Override
  public void stopPodSandbox(String sandboxId, Duration grace) {
    run("stop_podsandbox", () -> delegate.stopPodSandbox(sandboxId, grace));
  }

  @Override
  public void removePodSandbox(String sandboxId) {
    run("remove_podsandbox", () -> delegate.removePodSandbox(sandboxId));
  }

  @Override
  public String createContainer(String sandboxId, ContainerConfig config) {
    return record("create_container", () -> delegate.createContainer(sandboxId, config));
  }

  @Override
  public void startContainer(String containerId) {
    run("start_container", () -> delegate.startContainer(containerId));
  }

  @Override
  public void stopContainer(String containerId, Duration grace) {
    run("stop_container", () -> delegate.stopContainer(containerId, grace));
  }

  @Override
  public void removeContainer(String containerId) {
    run("remove_container", () -> delegate.removeContainer(containerId));
  }

  @Override
  public ExecResult exec(String containerId, List<String> command, Duration timeout) {
    return record("exec_sync", () -> delegate.exec(containerId, command, timeout));
  }

  @Override
  public boolean imagePresent(String image) {
    return record("image_status", () -> delegate.imagePresent(image));
  }

  @Override
  public List<ImageSummary> listImages() {
    return record("list_images", delegate::listImages);
  }

  @Override
  public void pullImage(String image, RegistryAuth auth, Duration timeout, PullObserver observer) {
    run("pull_image", () -> delegate.pullImage(image, auth, timeout, observer));
  }

  /** The start of a stream, counted as upstream counts its CRI {@code Exec} call. */
  @Override
  public StreamHandle execStream(String containerId, List<String> command, StreamIo io) {
    return record("exec", () -> delegate.execStream(containerId, command, io));
  }

  @Override
  public StreamHandle attach(String containerId, StreamIo io) {
    return record("attach", () -> delegate.attach(containerId, io));
  }

  @Override
  public StreamHandle portForward(String sandboxId, int port, InputStream in, OutputStream out) {
    return record("port_forward", () -> delegate.portForward(sandboxId, port, in, out));
  }

  @Override
  public String imageUser(String image) {
    return record("image_status", () -> delegate.imageUser(image));
  }
}
