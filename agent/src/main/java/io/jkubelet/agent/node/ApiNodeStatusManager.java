package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.node.NodeStatuses.Desired;
import io.jkubelet.agent.util.Executors2;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link NodeStatusManager} against the API server.
 *
 * <p>One named thread, {@code node-status}, runs {@link #syncOnce()} again and again: it registers
 * the Node until that succeeds (backoff 100 ms doubling to 7 s, as upstream's {@code
 * registerWithAPIServer}), then, every {@code statusUpdateFrequency}, renews the Lease first (it is
 * the cheaper heartbeat and the one the node lifecycle controller reads) and syncs the status.
 *
 * <p>Each status sync GETs the Node, as upstream's {@code tryUpdateNodeStatus} does, and computes
 * the conditions against what the API holds. That is what lets the agent see that the Node was
 * deleted (and register it again), and that a controller changed a condition it owns (and correct
 * it at once rather than five minutes later).
 *
 * <p>Node events are recorded after the write that made them true succeeded, so a failed PATCH does
 * not leave an event for a status nobody saw.
 *
 * <p>Threading: the fields under "sync state" are confined to the thread that runs {@link
 * #syncOnce()}: the scheduler thread, or a test's thread when the manager is not started. The
 * fields read by {@link #healthy()} and {@link #lastReported()} are volatile; {@code start} and
 * {@code stop} are synchronized on {@code this}.
 */
final class ApiNodeStatusManager implements NodeStatusManager {
  private static final Logger log = LoggerFactory.getLogger(ApiNodeStatusManager.class);

  static final Duration REGISTRATION_BACKOFF_INITIAL = Duration.ofMillis(100);
  static final Duration REGISTRATION_BACKOFF_MAX = Duration.ofSeconds(7);

  /** Unhealthy after this many update periods without a successful status sync or renewal. */
  static final int HEALTH_PERIODS = 3;

  private final NodeOptions options;
  private final KubernetesClient client;
  private final Clock clock;
  private final NodeInfo machine;
  private final Supplier<String> runtimeVersion;
  private final Supplier<Health> readiness;
  private final EventRecorder recorder;
  private final NodeLease lease;
  private final String name;

  // Sync state.
  private boolean registered;
  private boolean registrationEventsPending = true;
  private Duration registrationBackoff = REGISTRATION_BACKOFF_INITIAL;
  private Instant lastReportTime;
  private String knownRuntimeVersion;
  private boolean runtimeVersionFailing;
  private int registrationFailures;
  private int statusFailures;
  private int leaseFailures;

  // Read by any thread.
  private volatile String nodeUid;
  private volatile Node lastReported;
  private volatile Instant startedAt;
  private volatile Instant lastStatusOk;
  private volatile Instant lastLeaseOk;
  private volatile boolean everRegistered;
  private volatile String lastError = "none";

  private volatile ScheduledExecutorService scheduler;
  private volatile boolean stopped;

  ApiNodeStatusManager(
      NodeOptions options,
      KubernetesClient client,
      Clock clock,
      NodeInfo machine,
      Supplier<String> runtimeVersion,
      Supplier<Health> readiness,
      EventRecorder recorder) {
    this.options = Objects.requireNonNull(options, "options");
    this.client = Objects.requireNonNull(client, "client");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.machine = Objects.requireNonNull(machine, "machine");
    this.runtimeVersion = Objects.requireNonNull(runtimeVersion, "runtimeVersion");
    this.readiness = Objects.requireNonNull(readiness, "readiness");
    this.recorder = Objects.requireNonNull(recorder, "recorder");
    this.name = options.nodeName();
    this.lease = new NodeLease(client, name, options.leaseDurationSeconds());
  }

  @Override
  public synchronized void start() {
    if (scheduler != null || stopped) {
      return;
    }
    startedAt = clock.instant();
    scheduler = Executors2.scheduler("node-status");
    log.info(
        "NodeStatus: starting for node {}: status every {}, reported at least every {}, lease {}s",
        name,
        format(options.statusUpdateFrequency()),
        format(options.statusReportFrequency()),
        options.leaseDurationSeconds());
    scheduler.execute(this::loop);
  }

  @Override
  public synchronized void stop() {
    stopped = true;
    Executors2.shutdown(scheduler, 2000);
  }

  @Override
  public Health healthy() {
    Instant started = startedAt;
    if (started == null || stopped) {
      return Health.failing("NodeStatus: not running");
    }
    Instant last = latest(started, latest(lastStatusOk, lastLeaseOk));
    Duration age = Duration.between(last, clock.instant());
    Duration threshold = options.statusUpdateFrequency().multipliedBy(HEALTH_PERIODS);
    if (age.compareTo(threshold) <= 0) {
      return Health.OK;
    }
    String what =
        everRegistered
            ? "no node status or lease update succeeded for "
            : "node " + name + " is not registered after ";
    return Health.failing(
        "NodeStatus: "
            + what
            + format(age)
            + " (threshold "
            + format(threshold)
            + "); last error: "
            + lastError);
  }

  @Override
  public Optional<Node> lastReported() {
    return Optional.ofNullable(lastReported);
  }

  private void loop() {
    Duration next;
    try {
      next = syncOnce();
    } catch (RuntimeException e) {
      // A bug, not the API server: keep heart-beating anyway.
      log.error("NodeStatus: unexpected failure; retrying in {}", format(period()), e);
      next = period();
    }
    if (stopped || Thread.currentThread().isInterrupted()) {
      return;
    }
    ScheduledExecutorService s = scheduler;
    try {
      s.schedule(this::loop, next.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // stopping
    }
  }

  /**
   * One round: register while not registered, else renew the Lease and sync the status. Never
   * throws for API failures.
   *
   * @return how long to wait before the next round
   */
  Duration syncOnce() {
    if (!registered) {
      if (!register()) {
        Duration wait = registrationBackoff;
        Duration doubled = registrationBackoff.multipliedBy(2);
        registrationBackoff =
            doubled.compareTo(REGISTRATION_BACKOFF_MAX) > 0 ? REGISTRATION_BACKOFF_MAX : doubled;
        return wait;
      }
      registrationBackoff = REGISTRATION_BACKOFF_INITIAL;
    }
    renewLease();
    syncStatus();
    // A Node found deleted is registered again at once.
    return registered ? period() : Duration.ZERO;
  }

  // --- registration ---

  /** Creates the Node, or adopts the existing one. Returns whether the node is registered. */
  private boolean register() {
    Instant now = clock.instant();
    Desired desired =
        NodeStatuses.desired(options, machine, runtimeVersion(null), health(), List.of(), now);
    Node node = NodeStatuses.initialNode(options, machine, desired.status());
    try {
      // Nodes accept their status on create, so one call registers and reports.
      Node created = client.nodes().resource(node).create();
      nodeUid = created.getMetadata().getUid();
      registered(
          "NodeStatus: registered node {} (uid {})" + afterFailures(registrationFailures),
          created.getMetadata().getUid());
      reported(created, desired.status(), now);
      recordEvents(desired);
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return adopt(node);
      }
      registrationFailed(e);
      return false;
    } catch (RuntimeException e) {
      registrationFailed(e);
      return false;
    }
  }

  /**
   * Takes over a Node that already exists: adds and updates this agent's labels (removing none) and
   * leaves its taints alone, as upstream does on re-registration. The status sync that follows
   * brings its status up to date.
   */
  private boolean adopt(Node ours) {
    try {
      Node existing = client.nodes().withName(name).get();
      if (existing == null) {
        registrationFailed(
            new IllegalStateException("node " + name + " vanished while adopting it"));
        return false;
      }
      Map<String, String> have =
          existing.getMetadata().getLabels() == null
              ? Map.of()
              : existing.getMetadata().getLabels();
      Map<String, String> changes = new LinkedHashMap<>();
      ours.getMetadata()
          .getLabels()
          .forEach(
              (k, v) -> {
                if (!v.equals(have.get(k))) {
                  changes.put(k, v);
                }
              });
      if (!changes.isEmpty()) {
        String patch =
            client
                .getKubernetesSerialization()
                .asJson(Map.of("metadata", Map.of("labels", changes)));
        existing =
            client.nodes().withName(name).patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
      }
      nodeUid = existing.getMetadata().getUid();
      registered(
          "NodeStatus: node {} already exists (uid {}); took it over"
              + (changes.isEmpty() ? "" : ", setting labels " + changes)
              + afterFailures(registrationFailures),
          nodeUid);
      return true;
    } catch (RuntimeException e) {
      registrationFailed(e);
      return false;
    }
  }

  private void registered(String message, String uid) {
    log.info(message, name, uid);
    registered = true;
    everRegistered = true;
    registrationFailures = 0;
    lease.reset(); // its owner must become this Node
  }

  private void registrationFailed(RuntimeException e) {
    registrationFailures++;
    lastError = describe(e);
    String message = "NodeStatus: cannot register node {} (attempt {}): {}; retrying in {}";
    Object[] args = {name, registrationFailures, lastError, format(registrationBackoff)};
    if (refused(e)) {
      log.error(message, args); // retrying will not help until someone fixes it
    } else {
      log.warn(message, args);
    }
  }

  // --- status ---

  private void syncStatus() {
    Instant now = clock.instant();
    Node current;
    try {
      current = client.nodes().withName(name).get();
    } catch (RuntimeException e) {
      statusFailed(e);
      return;
    }
    if (current == null) {
      nodeGone();
      return;
    }
    String uid = current.getMetadata().getUid();
    if (!Objects.equals(uid, nodeUid)) {
      log.info("NodeStatus: node {} has a new uid {} (was {})", name, uid, nodeUid);
      nodeUid = uid;
      lease.reset();
    }
    NodeStatus onServer = current.getStatus();
    Desired desired =
        NodeStatuses.desired(
            options,
            machine,
            runtimeVersion(onServer),
            health(),
            onServer == null ? null : onServer.getConditions(),
            now);
    boolean changed = NodeStatuses.changed(onServer, desired.status());
    if (!NodeStatuses.shouldReport(changed, lastReportTime, now, options.statusReportFrequency())) {
      statusOk(now);
      return;
    }
    Node patched;
    try {
      String patch =
          client.getKubernetesSerialization().asJson(NodeStatuses.statusPatch(desired.status()));
      patched =
          client
              .nodes()
              .withName(name)
              .subresource("status")
              .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        nodeGone();
      } else {
        statusFailed(e);
      }
      return;
    } catch (RuntimeException e) {
      statusFailed(e);
      return;
    }
    log.debug("NodeStatus: reported the status of node {} (changed: {})", name, changed);
    statusOk(now);
    reported(patched, desired.status(), now);
    recordEvents(desired);
  }

  private void nodeGone() {
    log.warn("NodeStatus: node {} is gone from the API server; registering it again", name);
    registered = false;
    lastReportTime = null;
    lastError = "node " + name + " was deleted";
  }

  private void statusOk(Instant now) {
    if (statusFailures > 0) {
      log.info(
          "NodeStatus: syncing the status of node {} works again after {} failed attempts",
          name,
          statusFailures);
      statusFailures = 0;
    }
    lastStatusOk = now;
  }

  private void statusFailed(RuntimeException e) {
    statusFailures++;
    lastError = describe(e);
    String message =
        "NodeStatus: cannot sync the status of node {} ({} failed in a row): {}; retrying in {}";
    Object[] args = {name, statusFailures, lastError, format(period())};
    if (refused(e)) {
      log.error(message, args);
    } else {
      log.warn(message, args);
    }
  }

  /** Records what was written: the server's metadata and spec, with the status this agent sent. */
  private void reported(Node fromServer, NodeStatus sent, Instant now) {
    lastReportTime = now;
    lastReported = new NodeBuilder(fromServer).withStatus(sent).build();
  }

  /**
   * Records the events of the conditions that changed with the write that just succeeded, and the
   * registration events when this is the first write since the agent registered the node.
   */
  private void recordEvents(Desired written) {
    List<String> reasons = new ArrayList<>();
    if (registrationEventsPending) {
      reasons.addAll(NodeStatuses.REGISTRATION_EVENTS);
      registrationEventsPending = false;
    }
    for (String r : written.events()) {
      if (!reasons.contains(r)) {
        reasons.add(r);
      }
    }
    for (String reason : reasons) {
      recorder.eventf(
          Refs.node(name), EventType.Normal, reason, "Node %s status is now: %s", name, reason);
      if (reason.equals(Reasons.NODE_NOT_READY)) {
        log.info(
            "NodeStatus: node {} is not ready: {}",
            name,
            NodeStatuses.find(written.status().getConditions(), NodeStatuses.READY).getMessage());
      } else if (reason.equals(Reasons.NODE_READY)) {
        log.info("NodeStatus: node {} is ready", name);
      }
    }
  }

  /** The runtime's version; when it cannot be had, the last known one (or the server's). */
  private String runtimeVersion(NodeStatus onServer) {
    try {
      String v = Objects.requireNonNull(runtimeVersion.get(), "runtime version is null");
      if (runtimeVersionFailing) {
        log.info("NodeStatus: container runtime version is {} again", v);
        runtimeVersionFailing = false;
      }
      knownRuntimeVersion = v;
      return v;
    } catch (RuntimeException e) {
      String kept = knownRuntimeVersion;
      if (kept == null && onServer != null && onServer.getNodeInfo() != null) {
        kept = onServer.getNodeInfo().getContainerRuntimeVersion();
      }
      kept = kept == null ? "" : kept;
      if (!runtimeVersionFailing) {
        log.warn(
            "NodeStatus: cannot get the container runtime version, reporting \"{}\": {}",
            kept,
            describe(e));
        runtimeVersionFailing = true;
      }
      return kept;
    }
  }

  private Health health() {
    try {
      Health h = readiness.get();
      return h == null ? Health.failing("readiness is unknown") : h;
    } catch (RuntimeException e) {
      return Health.failing("readiness check failed: " + describe(e));
    }
  }

  // --- lease ---

  private void renewLease() {
    Instant now = clock.instant();
    try {
      lease.renew(now, nodeUid);
    } catch (RuntimeException e) {
      leaseFailures++;
      lastError = describe(e);
      log.warn(
          "NodeLease: cannot renew the lease of node {} ({} failed in a row): {}; retrying in {}",
          name,
          leaseFailures,
          lastError,
          format(period()));
      return;
    }
    if (leaseFailures > 0) {
      log.info(
          "NodeLease: renewing the lease of node {} works again after {} failed attempts",
          name,
          leaseFailures);
      leaseFailures = 0;
    }
    lastLeaseOk = now;
  }

  // --- helpers ---

  private Duration period() {
    return options.statusUpdateFrequency();
  }

  private static Instant latest(Instant a, Instant b) {
    if (a == null) {
      return b;
    }
    return b == null || a.isAfter(b) ? a : b;
  }

  private static String afterFailures(int failures) {
    return failures == 0 ? "" : " after " + failures + " failed attempts";
  }

  /**
   * Whether the API server refused the request for a reason retrying does not fix (a 4xx other than
   * timeouts, conflicts and throttling), such as a validation error or missing permissions.
   */
  static boolean refused(Throwable e) {
    if (e instanceof KubernetesClientException k) {
      int code = k.getCode();
      return code >= 400 && code < 500 && code != 408 && code != 409 && code != 429;
    }
    return false;
  }

  /** A short description of an API failure: the HTTP status and message, or the root cause. */
  static String describe(Throwable e) {
    if (e instanceof KubernetesClientException k && k.getCode() > 0) {
      String message =
          k.getStatus() != null && k.getStatus().getMessage() != null
              ? k.getStatus().getMessage()
              : k.getMessage();
      return "HTTP " + k.getCode() + ": " + message;
    }
    // fabric8 wraps I/O failures in "An error has occurred."; the root cause says what happened.
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName()
        + (root.getMessage() == null ? "" : ": " + root.getMessage());
  }

  /** Go-style: 200ms, 10s, 5m0s. */
  static String format(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + "ms";
    }
    if (ms < 60_000) {
      return (ms % 1000 == 0 ? Long.toString(ms / 1000) : String.format("%.1f", ms / 1000.0)) + "s";
    }
    return d.toMinutes() + "m" + d.toSecondsPart() + "s";
  }
}
