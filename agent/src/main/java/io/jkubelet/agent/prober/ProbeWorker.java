package io.jkubelet.agent.prober;

import io.jkubelet.agent.util.Lifecycle;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes one container with one probe, as upstream {@code worker} ({@code pkg/kubelet/prober
 * /worker.go}, v1.20): it counts consecutive results and publishes a result only when a threshold
 * is crossed.
 *
 * <p>Design: workers do not own threads. {@link #start()} schedules {@link #probeOnce()} on a
 * shared scheduler every period, after a random first delay within the period so that probes of
 * pods that start together spread out. Time decisions (the initial delay) read the injected clock;
 * only the period's ticking belongs to the scheduler.
 *
 * <p>Thread-safe: {@code this} guards the probing state ({@link #containerId}, {@link #lastResult},
 * {@link #resultRun}, {@link #onHold}, {@link #future}). NOTE: an attempt holds a scheduler thread
 * for up to the probe's timeout; size the shared scheduler for that.
 */
public final class ProbeWorker implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(ProbeWorker.class);

  /** Identifies a worker: one per (pod UID, container name, probe type). */
  public record Key(String podUid, String containerName, ProbeType type) {
    public Key {
      Objects.requireNonNull(podUid, "podUid");
      Objects.requireNonNull(containerName, "containerName");
      Objects.requireNonNull(type, "type");
    }

    @Override
    public String toString() {
      return type.name().toLowerCase() + " " + podUid + "/" + containerName;
    }
  }

  private final Key key;
  private final Prober prober;
  private final ProbeSettings settings;
  private final Supplier<Optional<ContainerSnapshot>> container;
  private final BooleanSupplier startupDone;
  private final ResultsManager results;
  private final Clock clock;
  private final ScheduledExecutorService scheduler;
  private final DoubleSupplier random;

  private String containerId;
  private ProbeResult lastResult = ProbeResult.UNKNOWN;
  private int resultRun;
  private boolean onHold;
  private ScheduledFuture<?> future;
  private boolean started;
  private boolean finished;
  private Outcome lastOutcome;

  /**
   * @param container the container as the pod status shows it now; empty while it has no status
   * @param startupDone whether the container's startup probe succeeded; {@code () -> true} when it
   *     has none. Liveness and readiness wait for it; a startup probe stops once it is true.
   * @param random uniform in [0, 1), for the first delay
   */
  public ProbeWorker(
      Key key,
      Prober prober,
      ProbeSettings settings,
      Supplier<Optional<ContainerSnapshot>> container,
      BooleanSupplier startupDone,
      ResultsManager results,
      Clock clock,
      ScheduledExecutorService scheduler,
      DoubleSupplier random) {
    this.key = Objects.requireNonNull(key, "key");
    this.prober = Objects.requireNonNull(prober, "prober");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.container = Objects.requireNonNull(container, "container");
    this.startupDone = Objects.requireNonNull(startupDone, "startupDone");
    this.results = Objects.requireNonNull(results, "results");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.random = Objects.requireNonNull(random, "random");
  }

  public Key key() {
    return key;
  }

  /** The outcome of the latest attempt that ran, for events and logs. */
  public synchronized Optional<Outcome> lastOutcome() {
    return Optional.ofNullable(lastOutcome);
  }

  /** Schedules the worker on the shared scheduler. Idempotent. */
  @Override
  public synchronized void start() {
    if (started) {
      return;
    }
    started = true;
    long periodMs = settings.period().toMillis();
    double r = Math.min(Math.max(random.getAsDouble(), 0.0), 1.0);
    long firstMs = (long) (r * periodMs);
    future = scheduler.scheduleAtFixedRate(this::tick, firstMs, periodMs, TimeUnit.MILLISECONDS);
    log.debug("Prober {} started, first attempt in {}ms", key, firstMs);
  }

  /** Cancels the schedule and forgets the published result, as upstream on stop. Idempotent. */
  @Override
  public synchronized void stop() {
    if (future != null) {
      future.cancel(false);
      future = null;
    }
    if (started && containerId != null) {
      results.remove(containerId, key.type());
    }
    finished = true;
  }

  @Override
  public synchronized Health healthy() {
    if (!started) {
      return Health.failing("Prober " + key + " not started");
    }
    return Health.OK;
  }

  private void tick() {
    try {
      if (!probeOnce()) {
        synchronized (this) {
          if (future != null) {
            future.cancel(false);
            future = null;
          }
          finished = true;
        }
        log.debug("Prober {} stopped: container terminated for good", key);
      }
    } catch (RuntimeException e) {
      // NOTE: an exception would silently cancel a fixed-rate schedule; keep going, as upstream.
      log.warn("Prober {} attempt failed unexpectedly", key, e);
    }
  }

  /**
   * Runs one step, as upstream {@code worker.doProbe}: follows the container id, waits for the
   * initial delay and for startup, runs an attempt, and publishes a result once a threshold is
   * crossed.
   *
   * @return whether the worker should keep going
   */
  public synchronized boolean probeOnce() {
    if (finished) {
      return false;
    }
    Optional<ContainerSnapshot> snap = container.get();
    if (snap.isEmpty()) {
      return true; // no status yet
    }
    ContainerSnapshot c = snap.get();
    if (c.terminal() && !c.running()) {
      if (containerId != null) {
        results.set(
            key.podUid(), key.containerName(), containerId, key.type(), ProbeResult.FAILURE);
      }
      return false;
    }
    if (c.containerId() == null || c.containerId().isEmpty()) {
      return true;
    }
    if (!c.containerId().equals(containerId)) {
      if (containerId != null) {
        results.remove(containerId, key.type());
      }
      containerId = c.containerId();
      results.set(
          key.podUid(), key.containerName(), containerId, key.type(), key.type().initialResult());
      onHold = false;
      lastResult = ProbeResult.UNKNOWN;
      resultRun = 0;
    }
    if (onHold) {
      return true; // a failed liveness or startup probe waits for a new container
    }
    if (!c.running()) {
      results.set(key.podUid(), key.containerName(), containerId, key.type(), ProbeResult.FAILURE);
      return true;
    }
    Instant now = clock.instant();
    if (c.startedAt() != null
        && Duration.between(c.startedAt(), now).compareTo(settings.initialDelay()) < 0) {
      return true;
    }
    boolean startedUp = startupDone.getAsBoolean();
    if (key.type() == ProbeType.STARTUP ? startedUp : !startedUp) {
      return true;
    }

    Outcome outcome = prober.probe(new ProbeTarget(c.podIp(), containerId, settings.timeout()));
    lastOutcome = outcome;
    ProbeResult result = outcome.result();
    if (result == ProbeResult.UNKNOWN) {
      log.debug("Prober {} attempt inconclusive: {}", key, outcome.output());
      return true; // as upstream with a prober error: throw the result away
    }
    if (result == ProbeResult.FAILURE) {
      log.debug("Prober {} attempt failed: {}", key, outcome.output());
    }
    if (result == lastResult) {
      resultRun++;
    } else {
      lastResult = result;
      resultRun = 1;
    }
    if ((result == ProbeResult.FAILURE && resultRun < settings.failureThreshold())
        || (result == ProbeResult.SUCCESS && resultRun < settings.successThreshold())) {
      return true;
    }
    if (results.set(key.podUid(), key.containerName(), containerId, key.type(), result)) {
      log.info("Prober {} result {} ({})", key, result, outcome.output());
    }
    if (key.type() != ProbeType.READINESS && result == ProbeResult.FAILURE) {
      onHold = true;
      resultRun = 0;
    }
    return true;
  }
}
