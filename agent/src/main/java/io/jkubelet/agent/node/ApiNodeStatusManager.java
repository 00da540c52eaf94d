package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Schedulers;
import io.jkubelet.config.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link NodeStatusManager} against the API server.
 *
 * <p>One named thread, {@code node-status}, from the injected {@link Schedulers}, runs {@link
 * #syncOnce()} again and again: {@link NodeRegistration} registers the Node until that succeeds,
 * then, every {@code statusUpdateFrequency}, the {@link NodeLease} is renewed first (it is the
 * cheaper heartbeat and the one the node lifecycle controller reads) and {@link NodeStatusSync}
 * syncs the status.
 *
 * <p>Threading: the three parts and {@link NodeState}'s plain fields are confined to the thread
 * that runs {@link #syncOnce()}: the scheduler thread, or a test's thread when the manager is not
 * started. {@code start} and {@code stop} are synchronized on {@code this}.
 */
final class ApiNodeStatusManager implements NodeStatusManager {
  private static final Logger log = LoggerFactory.getLogger(ApiNodeStatusManager.class);

  /** Unhealthy after this many update periods without a successful status sync or renewal. */
  static final int HEALTH_PERIODS = 3;

  private final NodeOptions options;
  private final Clock clock;
  private final Schedulers schedulers;
  private final String name;
  private final NodeState state = new NodeState();
  private final NodeLease lease;
  private final NodeStatusSync status;
  private final NodeRegistration registration;
  private int leaseFailures;

  private volatile Instant startedAt;
  private volatile Scheduler scheduler;
  private volatile boolean stopped;

  ApiNodeStatusManager(
      NodeOptions options,
      KubernetesClient client,
      Clock clock,
      Schedulers schedulers,
      NodeInfo machine,
      Supplier<String> runtimeVersion,
      Supplier<Health> readiness,
      EventRecorder recorder) {
    this.options = Objects.requireNonNull(options, "options");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.schedulers = Objects.requireNonNull(schedulers, "schedulers");
    this.name = options.nodeName();
    this.lease = new NodeLease(client, name, options.leaseDurationSeconds());
    this.status =
        new NodeStatusSync(
            options,
            client,
            clock,
            Objects.requireNonNull(machine, "machine"),
            Objects.requireNonNull(runtimeVersion, "runtimeVersion"),
            Objects.requireNonNull(readiness, "readiness"),
            Objects.requireNonNull(recorder, "recorder"),
            lease,
            state);
    this.registration = new NodeRegistration(options, client, clock, machine, status, lease, state);
  }

  @Override
  public synchronized void start() {
    if (scheduler != null || stopped) {
      return;
    }
    startedAt = clock.instant();
    scheduler = schedulers.create("node-status");
    log.info(
        "NodeStatus: starting for node {}: status every {}, reported at least every {}, lease {}s",
        name,
        Durations.format(options.statusUpdateFrequency()),
        Durations.format(options.statusReportFrequency()),
        options.leaseDurationSeconds());
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
    Instant last = latest(started, latest(state.lastStatusOk, state.lastLeaseOk));
    Duration age = Duration.between(last, clock.instant());
    Duration threshold = options.statusUpdateFrequency().multipliedBy(HEALTH_PERIODS);
    if (age.compareTo(threshold) <= 0) {
      return Health.OK;
    }
    String what =
        state.everRegistered
            ? "no node status or lease update succeeded for "
            : "node " + name + " is not registered after ";
    return Health.failing(
        "NodeStatus: "
            + what
            + Durations.format(age)
            + " (threshold "
            + Durations.format(threshold)
            + "); last error: "
            + state.lastError);
  }

  @Override
  public Optional<Node> lastReported() {
    return Optional.ofNullable(state.lastReported);
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
    Scheduler s = scheduler;
    if (!stopped && s != null) {
      s.after(next, this::loop);
    }
  }

  /**
   * One round: register while not registered, else renew the Lease and sync the status. Never
   * throws for API failures.
   *
   * @return how long to wait before the next round
   */
  Duration syncOnce() {
    if (!state.registered && !registration.register()) {
      return registration.retryDelay();
    }
    renewLease();
    status.sync();
    // A Node found deleted is registered again at once.
    return state.registered ? period() : Duration.ZERO;
  }

  private void renewLease() {
    Instant now = clock.instant();
    try {
      lease.renew(now, state.nodeUid);
    } catch (RuntimeException e) {
      leaseFailures++;
      state.lastError = Errors.describeApi(e);
      log.warn(
          "NodeLease: cannot renew the lease of node {} ({} failed in a row): {}; retrying in {}",
          name,
          leaseFailures,
          state.lastError,
          Durations.format(period()));
      return;
    }
    if (leaseFailures > 0) {
      log.info(
          "NodeLease: renewing the lease of node {} works again after {} failed attempts",
          name,
          leaseFailures);
      leaseFailures = 0;
    }
    state.lastLeaseOk = now;
  }

  private Duration period() {
    return options.statusUpdateFrequency();
  }

  private static Instant latest(Instant a, Instant b) {
    if (a == null) {
      return b;
    }
    return b == null || a.isAfter(b) ? a : b;
  }
}
