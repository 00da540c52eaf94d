package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link NodeStatusManager} against the API server: coordinates {@link NodeRegistration},
 * {@link NodeLease} and {@link NodeStatusSync}.
 *
 * <p>One scheduler, {@code node-status}, runs {@link #syncOnce()} again and again: it registers the
 * Node (with {@code registerNode: false}, waits for someone else to create it) until that succeeds
 * (with {@link NodeRegistration#BACKOFF}); then it syncs the status every {@code
 * statusUpdateFrequency} (a PATCH only when it changed or {@code statusReportFrequency} passed) and
 * renews the Lease every quarter of its {@code leaseDurationSeconds}, as upstream's Lease
 * controller, the Lease first when both are due (it is the cheaper heartbeat and the one the node
 * lifecycle controller reads); a pressure condition that changes, or a NotReady node that becomes
 * ready, brings the next round forward (within {@link #CONDITION_POLL}). A Node found deleted is
 * registered again at once; a Node with a new uid makes the Lease take it as its owner.
 *
 * <p>Threading: the fields under "sync state", and the three parts, are confined to the thread that
 * runs {@link #syncOnce()}: the scheduler's, or a test's thread when the manager is not started.
 * The fields read by {@link #healthy()} are volatile; {@code start} and {@code stop} are
 * synchronized on {@code this}.
 */
final class ApiNodeStatusManager implements NodeStatusManager {
  private static final Logger log = LoggerFactory.getLogger(ApiNodeStatusManager.class);

  /** How long a starting agent waits to be ready before it registers its Node anyway. */
  static final Duration STARTUP_GRACE = Duration.ofSeconds(10);

  /** How often a starting agent asks whether it is ready. */
  static final Duration STARTUP_POLL = Duration.ofMillis(100);

  /** Unhealthy after this many update periods without a successful status sync or renewal. */
  static final int HEALTH_PERIODS = 3;

  private final NodeOptions options;
  private final Time time;
  private final Clock clock;
  private final String name;
  private final NodeStatusSync status;
  private final NodeRegistration registration;
  private final NodeLease lease;
  private final KubernetesClient client;

  // Sync state.
  private boolean registered;
  private boolean waitingLogged;
  private Instant statusDue;
  private Instant leaseDue;
  private String nodeUid;

  // Read by any thread.
  private volatile Instant startedAt;
  private volatile Instant lastStatusOk;
  private volatile Instant lastLeaseOk;
  private volatile boolean everRegistered;
  private volatile String lastError = "none";

  private volatile Scheduler scheduler;

  /**
   * How often, between two rounds, the node looks whether a condition it owns wants writing now: a
   * pressure condition that the eviction manager set or cleared, or a NotReady node that became
   * ready.
   */
  static final Duration CONDITION_POLL = Duration.ofSeconds(1);

  private volatile boolean stopped;

  ApiNodeStatusManager(
      NodeOptions options,
      KubernetesClient client,
      Time time,
      NodeStatusManager.Sources sources,
      EventRecorder recorder) {
    this.options = Objects.requireNonNull(options, "options");
    this.time = Objects.requireNonNull(time, "time");
    this.clock = time.clock();
    this.name = options.nodeName();
    this.client = Objects.requireNonNull(client, "client");
    this.status = new NodeStatusSync(options, client, sources, recorder);
    this.registration = new NodeRegistration(options, client, sources.machine(), status);
    this.lease = new NodeLease(client, name, options.heartbeat().leaseDurationSeconds());
  }

  @Override
  public synchronized void start() {
    if (scheduler != null || stopped) {
      return;
    }
    startedAt = clock.instant();
    scheduler = time.schedulers().create("node-status");
    log.info(
        "NodeStatus: starting for node {}: status every {}, reported at least every {}, lease {}s",
        name,
        Durations.format(options.heartbeat().statusUpdateFrequency()),
        Durations.format(options.heartbeat().statusReportFrequency()),
        options.heartbeat().leaseDurationSeconds());
    scheduler.after(Duration.ZERO, this::loop);
  }

  @Override
  public synchronized void stop() {
    stopped = true;
    if (scheduler != null) {
      scheduler.close();
    }
  }

  @Override
  public Health healthy() {
    Instant started = startedAt;
    if (started == null || stopped) {
      return Health.failing("NodeStatus: not running");
    }
    Instant last = latest(started, latest(lastStatusOk, lastLeaseOk));
    Duration age = Duration.between(last, clock.instant());
    Duration threshold = period().multipliedBy(HEALTH_PERIODS);
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
            + Durations.format(age)
            + " (threshold "
            + Durations.format(threshold)
            + "); last error: "
            + lastError);
  }

  @Override
  public Optional<Node> lastReported() {
    return Optional.ofNullable(status.lastReported());
  }

  private void loop() {
    Duration next;
    try {
      next = syncOnce();
    } catch (RuntimeException e) {
      // A bug, not the API server: keep heart-beating anyway.
      log.error("NodeStatus: unexpected failure; retrying in {}", Durations.format(period()), e);
      next = period();
    }
    if (stopped || Thread.currentThread().isInterrupted()) {
      return;
    }
    try {
      if (registered && next.compareTo(CONDITION_POLL) > 0) {
        Instant due = clock.instant().plus(next);
        boolean notReady = !status.health().ok();
        scheduler.after(CONDITION_POLL, () -> untilDue(due, notReady));
      } else {
        scheduler.after(next, this::loop);
      }
    } catch (RejectedExecutionException e) {
      // stopping
    }
  }

  /**
   * Until {@code due}, the next round, looks every {@link #CONDITION_POLL} whether a condition
   * wants writing at once, and then runs the round early: a pressure condition that changed, so
   * that the Node shows pressure within a second of the eviction manager seeing it (upstream waits
   * for the next status update, and a short pressure can fall between two and never show), or a
   * NotReady node that became ready (a CNI configuration that a DaemonSet just wrote). Readiness is
   * asked only while NotReady: asking it calls the runtime.
   */
  private void untilDue(Instant due, boolean notReady) {
    if (stopped) {
      return;
    }
    if (!clock.instant().isBefore(due)) {
      loop();
      return;
    }
    if (status.pressureChanged() || (notReady && status.health().ok())) {
      statusDue = null; // the status now, not at its next turn
      loop();
      return;
    }
    try {
      scheduler.after(CONDITION_POLL, () -> untilDue(due, notReady));
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
    if (!registered && startingUp()) {
      return STARTUP_POLL;
    }
    if (!registered && !options.registration().register()) {
      return awaitNode();
    }
    if (!registered) {
      switch (registration.register(clock.instant())) {
        case NodeRegistration.Result.Registered r -> {
          registered(r.uid());
          if (r.takenOver() != null) {
            // A restart: the Node as just read is current, and its Ready heartbeat is what the
            // cluster waits for, so the status goes first, without reading the Node again.
            Instant now = clock.instant();
            boolean still = syncStatus(r.takenOver());
            statusDue = now.plus(period());
            renewLeaseIfDue(now);
            return still ? untilNext(now) : Duration.ZERO;
          }
        }
        case NodeRegistration.Result.Failed f -> {
          lastError = f.error();
          return f.retryIn();
        }
      }
    }
    Instant now = clock.instant();
    renewLeaseIfDue(now);
    if (statusDue != null && now.isBefore(statusDue)) {
      return untilNext(now); // a round for the Lease only
    }
    statusDue = now.plus(period());
    // A Node found deleted is registered again at once.
    return syncStatus(null) ? untilNext(now) : Duration.ZERO;
  }

  /**
   * With {@code registerNode: false}, while no Node of this name is known: reads it, and once
   * someone has created it, takes it up as upstream does, by writing its status (no labels, no
   * taints, no annotation) and then the Lease, whose owner it is. Until then no Lease is written
   * either: upstream's Lease controller creates none without its Node to own it. A read that finds
   * no Node counts as a successful round for {@link #healthy()}: the API server answered.
   */
  private Duration awaitNode() {
    Instant now = clock.instant();
    Node current;
    try {
      current = client.nodes().withName(name).get();
    } catch (RuntimeException e) {
      lastError = Errors.describeApi(e);
      log.warn(
          "NodeStatus: cannot read node {}: {}; retrying in {}",
          name,
          lastError,
          Durations.format(period()));
      return period();
    }
    if (current == null) {
      if (!waitingLogged) {
        log.info(
            "NodeStatus: registerNode is false and node {} does not exist: its status and Lease"
                + " are written once it is created",
            name);
        waitingLogged = true;
      }
      lastStatusOk = now;
      return period();
    }
    waitingLogged = false;
    String uid = current.getMetadata().getUid();
    log.info("NodeStatus: node {} exists (uid {}); reporting its status", name, uid);
    registered(uid);
    boolean still = syncStatus(current);
    statusDue = now.plus(period());
    if (still) {
      renewLeaseIfDue(now);
    }
    return still ? untilNext(now) : period();
  }

  /**
   * Whether the agent is still starting: it was started less than {@link #STARTUP_GRACE} ago, has
   * never registered, and is not ready yet (its loop and PLEG have not run). The Node is then
   * registered once it is ready, as upstream's first status is, instead of as NotReady with a
   * {@code NodeNotReady} event a second before {@code NodeReady}. An agent that is still not ready
   * after the grace registers NotReady, which is then the truth.
   */
  private boolean startingUp() {
    Instant started = startedAt;
    if (started == null || everRegistered) {
      return false;
    }
    if (Duration.between(started, clock.instant()).compareTo(STARTUP_GRACE) >= 0) {
      return false;
    }
    return !status.health().ok();
  }

  /**
   * Renews the Lease when its renewal is due: every quarter of {@code nodeLeaseDurationSeconds}, as
   * upstream's Lease controller ({@code nodeLeaseRenewIntervalFraction}), whatever the status's
   * frequency. A failed renewal is tried again after the shorter of that interval and {@code
   * nodeStatusUpdateFrequency}.
   */
  private void renewLeaseIfDue(Instant now) {
    if (leaseDue != null && now.isBefore(leaseDue)) {
      return;
    }
    Duration interval = leaseRenewInterval();
    Duration retry = interval.compareTo(period()) < 0 ? interval : period();
    Optional<String> error = lease.heartbeat(now, nodeUid, retry);
    if (error.isPresent()) {
      lastError = error.get();
      leaseDue = now.plus(retry);
    } else {
      lastLeaseOk = now;
      leaseDue = now.plus(interval);
    }
  }

  /** Upstream's Lease renewal interval: a quarter of the Lease's duration. */
  Duration leaseRenewInterval() {
    return Duration.ofSeconds(options.heartbeat().leaseDurationSeconds()).dividedBy(4);
  }

  /** How long from {@code now} until the status or the Lease is due, whichever comes first. */
  private Duration untilNext(Instant now) {
    Instant next = leaseDue != null && leaseDue.isBefore(statusDue) ? leaseDue : statusDue;
    Duration d = Duration.between(now, next);
    return d.isNegative() ? Duration.ZERO : d;
  }

  /**
   * Syncs the status against {@code current}, the Node as just read (null: read it now); returns
   * whether the Node is still registered.
   */
  private boolean syncStatus(Node current) {
    Instant now = clock.instant();
    switch (current == null ? status.sync(now, nodeUid) : status.sync(now, current)) {
      case NodeStatusSync.Result.Synced s -> {
        seen(s.uid());
        lastStatusOk = now;
      }
      case NodeStatusSync.Result.Failed f -> {
        seen(f.uid());
        lastError = f.error();
      }
      case NodeStatusSync.Result.Gone g -> {
        registered = false;
        lastError = "node " + name + " was deleted";
      }
    }
    return registered;
  }

  private void registered(String uid) {
    registered = true;
    everRegistered = true;
    nodeUid = uid;
    lease.reset(); // its owner must become this Node
    leaseDue = null;
  }

  /** The Node was read with this uid: a new one (it was recreated) becomes the Lease's owner. */
  private void seen(String uid) {
    if (!Objects.equals(uid, nodeUid)) {
      log.info("NodeStatus: node {} has a new uid {} (was {})", name, uid, nodeUid);
      nodeUid = uid;
      lease.reset();
      leaseDue = null;
    }
  }

  private Duration period() {
    return options.heartbeat().statusUpdateFrequency();
  }

  private static Instant latest(Instant a, Instant b) {
    if (a == null) {
      return b;
    }
    return b == null || a.isAfter(b) ? a : b;
  }
}
