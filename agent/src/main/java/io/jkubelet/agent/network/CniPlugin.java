package io.jkubelet.agent.network;

import com.fasterxml.jackson.databind.JsonNode;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Schedulers;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A network plugin on CNI, as dockershim's {@code cniNetworkPlugin} over libcni: the loopback
 * network, then the node's network, ADDed into each sandbox's namespace; DEL on teardown with the
 * cached result. The network is read again every {@link #RESCAN} (upstream: 5 s), so a
 * configuration that a CNI DaemonSet writes is picked up without a restart.
 *
 * <p>Beyond upstream: every attachment is on disk before its ADD runs ({@link Attachments}), an
 * attachment whose sandbox no longer runs is DELeted at start and every {@link #RECONCILE}, and a
 * failing DEL never keeps a pod from stopping: its attachment stays until a DEL succeeds.
 *
 * <p>Thread-safe. A sandbox's set-up, teardown and reconciliation hold that sandbox's lock (one of
 * {@link #STRIPES}); no other pod waits for them. {@code choice} and {@code podCidrs} are volatile,
 * written by the scheduler's thread.
 */
final class CniPlugin {
  private static final Logger log = LoggerFactory.getLogger(CniPlugin.class);
  static final Duration RESCAN = Duration.ofSeconds(2);
  static final Duration RECONCILE = Duration.ofMinutes(1);
  static final String IF_NAME = "eth0";
  private static final int STRIPES = 64;

  private final NetworkSource source;
  private final CniChain chain;
  private final Attachments attachments;
  private final Supplier<List<String>> podCidrsOf;
  private final Schedulers schedulers;
  private final Clock clock;
  private final Object[] locks = new Object[STRIPES];
  private volatile ConfDir.Choice choice = new ConfDir.Choice(null, List.of());
  private volatile List<String> podCidrs = List.of();
  private volatile String chosenSource = "";
  private volatile String lastRejects = "";
  private volatile Runtime runtime;
  private volatile Scheduler scheduler;
  private volatile List<String> ignoredCidrs = List.of();

  /**
   * @param podCidrsOf the node's pod CIDRs: the Node's {@code spec.podCIDRs}, else {@code
   *     --pod-cidr}; empty while unknown
   */
  CniPlugin(
      NetworkSource source,
      CniExec exec,
      Attachments attachments,
      Supplier<List<String>> podCidrsOf,
      Clock clock,
      Schedulers schedulers) {
    this.clock = clock;
    this.source = source;
    this.chain = new CniChain(exec, clock);
    this.attachments = attachments;
    this.podCidrsOf = podCidrsOf;
    this.schedulers = schedulers;
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new Object();
    }
  }

  String name() {
    return source.name();
  }

  /** The runtime whose sandboxes reconciliation looks at. */
  void runtime(Runtime r) {
    this.runtime = r;
  }

  synchronized void start() {
    if (scheduler != null) {
      return;
    }
    attachments.load();
    refresh();
    status().ifPresent(why -> log.warn("Network: {} plugin not ready yet: {}", source.name(), why));
    scheduler = schedulers.create("network");
    scheduler.withFixedDelay(RESCAN, RESCAN, this::refresh);
    scheduler.withFixedDelay(Duration.ZERO, RECONCILE, this::reconcile);
  }

  synchronized void stop() {
    if (scheduler != null) {
      scheduler.close();
      scheduler = null;
    }
  }

  boolean started() {
    return scheduler != null;
  }

  /** Reads the node's pod CIDRs and the network again; logs what changed. */
  void refresh() {
    try {
      List<String> cidrs = List.copyOf(podCidrsOf.get());
      if (!cidrs.equals(podCidrs)) {
        if (!podCidrs.isEmpty()) {
          if (!cidrs.equals(ignoredCidrs)) {
            log.warn("Network: ignoring a change of the pod CIDRs from {} to {}", podCidrs, cidrs);
            ignoredCidrs = cidrs;
          }
        } else {
          log.info("Network: the node's pod CIDRs are {}", cidrs);
          podCidrs = cidrs;
        }
      }
      ConfDir.Choice next = source.read(podCidrs);
      String rejects =
          next.rejected().stream()
              .map(ConfDir.Rejected::toString)
              .collect(Collectors.joining("; "));
      if (!rejects.equals(lastRejects) && !rejects.isEmpty()) {
        log.warn("Network: CNI configuration passed over: {}", rejects);
      }
      lastRejects = rejects;
      String chosen = next.network() == null ? "" : next.network().source();
      if (!chosen.equals(chosenSource)) {
        if (chosen.isEmpty()) {
          log.warn("Network: no valid CNI configuration any more; pods cannot be set up");
        } else {
          log.info(
              "Network: using CNI configuration {} (network {}, plugins {})",
              chosen,
              next.network().name(),
              next.network().types());
        }
        chosenSource = chosen;
      }
      choice = next;
    } catch (RuntimeException e) {
      log.warn("Network: cannot read the network configuration: {}", e.toString());
    }
  }

  /** Why pods cannot be set up now, in upstream's words, with the files passed over; or empty. */
  Optional<String> status() {
    ConfDir.Choice c = choice;
    if (c.network() == null) {
      String why = source.uninitialized();
      if (!c.rejected().isEmpty()) {
        why +=
            " ("
                + c.rejected().stream()
                    .map(ConfDir.Rejected::toString)
                    .collect(Collectors.joining("; "))
                + ")";
      }
      return Optional.of(why);
    }
    if (c.network().capabilities().contains("ipRanges") && podCidrs.isEmpty()) {
      return Optional.of("cni config needs ipRanges but no PodCIDR set");
    }
    return Optional.empty();
  }

  /** Whether the network maps host ports (declares {@code portMappings}). */
  boolean mapsHostPorts() {
    NetworkList n = choice.network();
    return n != null && n.capabilities().contains("portMappings");
  }

  /**
   * Attaches a started sandbox: loopback, then the network. The attachment is on disk before the
   * ADD. Returns the pod's IPs.
   */
  List<String> setUp(SandboxConfig config, String sandboxId, String netns) throws CniException {
    Optional<String> notReady = status();
    if (notReady.isPresent()) {
      throw new CniException(notReady.get());
    }
    NetworkList network = choice.network(); // read once: a rescan may replace it meanwhile
    if (network == null) {
      throw new CniException(source.uninitialized());
    }
    synchronized (lock(sandboxId)) {
      Attachments.Attachment a =
          new Attachments.Attachment(
              sandboxId,
              IF_NAME,
              network,
              cniArgs(config, sandboxId),
              CapabilityArgs.of(config, podCidrs),
              null);
      try {
        attachments.put(a);
      } catch (IOException e) {
        throw Errors.withCause(
            new CniException("cannot record the attachment before ADD: " + e.getMessage()), e);
      }
      Instant start = clock.instant();
      Duration[] inPlugins = {Duration.ZERO};
      chain.add(NetworkList.LOOPBACK, a, netns, "lo", inPlugins);
      JsonNode result = chain.add(network, a, netns, IF_NAME, inPlugins);
      a = a.withResult(result);
      try {
        attachments.put(a);
      } catch (IOException e) {
        log.warn("Network: cannot record the result of {}'s ADD: {}", sandboxId, e.getMessage());
      }
      List<String> ips = a.ips();
      if (ips.isEmpty()) {
        throw new CniException("network " + network.name() + " gave the pod no IP address");
      }
      log.info(
          "Network: attached sandbox {} of pod {}/{} to {} in {} ms ({} ms in plugins): {}",
          sandboxId,
          config.pod().namespace(),
          config.pod().name(),
          network.name(),
          Duration.between(start, clock.instant()).toMillis(),
          inPlugins[0].toMillis(),
          ips);
      return ips;
    }
  }

  /**
   * DELs the sandbox's attachment, if it has one: loopback (only while its namespace exists), then
   * the network in reverse, each plugin with the cached result. The attachment is forgotten only
   * when every DEL succeeded.
   *
   * @param netns the namespace, or "" when it is gone (the plugins release what is outside it)
   */
  void tearDown(String sandboxId, String netns) throws CniException {
    synchronized (lock(sandboxId)) {
      Optional<Attachments.Attachment> found = attachments.get(sandboxId);
      if (found.isEmpty()) {
        return;
      }
      Attachments.Attachment a = found.get();
      Instant start = clock.instant();
      Duration[] inPlugins = {Duration.ZERO};
      if (!netns.isEmpty()) {
        try {
          chain.del(NetworkList.LOOPBACK, a, netns, "lo", null, inPlugins);
        } catch (CniException e) {
          log.warn(
              "Network: CNI failed to delete loopback network of {}: {}",
              sandboxId,
              e.getMessage());
        }
      }
      chain.del(
          a.network(),
          a,
          netns,
          a.ifName(),
          a.network().cachesResults() ? a.result() : null,
          inPlugins);
      try {
        attachments.remove(a);
      } catch (IOException e) {
        log.warn("Network: cannot remove the attachment of {}: {}", sandboxId, e.getMessage());
      }
      log.info(
          "Network: detached sandbox {} of pod {}/{} from {} in {} ms ({} ms in plugins)",
          sandboxId,
          a.arg("K8S_POD_NAMESPACE"),
          a.arg("K8S_POD_NAME"),
          a.network().name(),
          Duration.between(start, clock.instant()).toMillis(),
          inPlugins[0].toMillis());
    }
  }

  /** The IPs a sandbox got from ADD; empty when it has no attachment. Never runs a plugin. */
  List<String> ips(String sandboxId) {
    return attachments.get(sandboxId).map(Attachments.Attachment::ips).orElse(List.of());
  }

  boolean attached(String sandboxId) {
    return attachments.get(sandboxId).isPresent();
  }

  /**
   * DELs every attachment whose sandbox no longer runs (a crash, a restart of Docker, a pod deleted
   * while jkubelet was down, a reboot), each under its sandbox's lock and checked again there.
   */
  void reconcile() {
    Runtime r = runtime;
    if (r == null || attachments.size() == 0) {
      return;
    }
    Set<String> running;
    try {
      running =
          r.listContainers().stream()
              .filter(c -> c.sandbox() && c.state() == ContainerState.RUNNING)
              .map(ContainerSummary::id)
              .collect(Collectors.toSet());
    } catch (RuntimeException e) {
      log.warn("Network: cannot list sandboxes to release stale attachments: {}", e.getMessage());
      return;
    }
    for (Attachments.Attachment a : attachments.all()) {
      if (running.contains(a.sandboxId())) {
        continue;
      }
      synchronized (lock(a.sandboxId())) {
        if (!r.sandboxNetNs(a.sandboxId()).isEmpty()) {
          continue; // started since the listing: being set up
        }
        try {
          tearDown(a.sandboxId(), "");
          log.info(
              "Network: released the attachment of sandbox {} of pod {}/{}, which no longer runs",
              a.sandboxId(),
              a.arg("K8S_POD_NAMESPACE"),
              a.arg("K8S_POD_NAME"));
        } catch (CniException | RuntimeException e) {
          log.warn(
              "Network: cannot release the attachment of sandbox {}: {}",
              a.sandboxId(),
              e.getMessage());
        }
      }
    }
  }

  /** dockershim's CNI_ARGS. */
  private static List<List<String>> cniArgs(SandboxConfig config, String sandboxId) {
    return List.of(
        List.of("IgnoreUnknown", "1"),
        List.of("K8S_POD_NAMESPACE", config.pod().namespace()),
        List.of("K8S_POD_NAME", config.pod().name()),
        List.of("K8S_POD_INFRA_CONTAINER_ID", sandboxId));
  }

  private Object lock(String sandboxId) {
    return locks[Math.floorMod(Objects.hashCode(sandboxId), STRIPES)];
  }
}
