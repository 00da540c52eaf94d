package io.jkubelet.agent.prober;

import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Scheduler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes one container with one probe, as upstream {@code worker} ({@code pkg/kubelet/prober
 * /worker.go}, v1.20): it counts consecutive results and publishes a result only when a threshold
 * is crossed.
 *
 * <p>Design: workers own no thread. {@link #start()} puts a tick on the shared {@link Scheduler}
 * every period, after a random first delay within the period so that probes of pods that start
 * together (or of every pod after a restart of jkubelet) spread out. A tick hands one attempt to
 * the shared attempt executor and returns at once, so a slow attempt never delays another worker's
 * tick; a tick that finds the previous attempt still running is skipped, as upstream's worker would
 * wait. Time decisions (the initial delay, the stats) read the injected clock.
 *
 * <p>Thread-safe: {@code lock} guards the probing state; it is never held during an attempt's I/O,
 * so {@link #stop()} from the sync loop never waits for a slow probe. An attempt whose worker
 * stopped, or whose container changed, meanwhile is dropped. It is a {@link ReentrantLock}, not
 * {@code synchronized}, so that virtual threads never pin their carrier on it. The lock also guards
 * the worker's {@link ResultRun} and {@link AttemptStats}.
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
      return type.label() + " " + podUid + "/" + containerName;
    }
  }

  /** Told of every attempt that ran, conclusive or not: for events and stats. */
  @FunctionalInterface
  public interface Listener {
    void attempted(Key key, String containerId, ProbeOutcome outcome);

    Listener NONE = (k, id, o) -> {};
  }

  /**
   * What every worker shares.
   *
   * @param timer ticks the workers; only ticks run on it, never attempts
   * @param attempts runs the attempts, e.g. a virtual-thread-per-task executor
   * @param random uniform in [0, 1), for the first delay
   */
  public record Shared(
      ResultsManager results,
      Listener listener,
      Clock clock,
      Scheduler timer,
      Executor attempts,
      DoubleSupplier random) {
    public Shared {
      Objects.requireNonNull(results, "results");
      Objects.requireNonNull(listener, "listener");
      Objects.requireNonNull(clock, "clock");
      Objects.requireNonNull(timer, "timer");
      Objects.requireNonNull(attempts, "attempts");
      Objects.requireNonNull(random, "random");
    }
  }

  /**
   * How regularly a worker's attempts started: their number, the mean interval between the starts
   * of consecutive attempts, the interval furthest from the period, and the ticks skipped because
   * the previous attempt was still running.
   */
  public record Stats(
      Key key,
      Duration period,
      long attempts,
      Duration meanInterval,
      Duration worstInterval,
      long skipped) {}

  /**
   * The attempts that ran, by result, as upstream's {@code prober_probe_total} counts them: an
   * attempt that could not tell (a prober error) is {@code unknown}.
   */
  public record ResultCounts(Key key, long successful, long failed, long unknown) {}

  /** How far past its timeout an attempt may run before {@link #reportOverrun} warns. */
  static final Duration OVERRUN_GRACE = Duration.ofSeconds(5);

  private final Key key;
  private final Prober prober;
  private final ProbeSettings settings;
  private final Supplier<Optional<ContainerSnapshot>> container;
  private final Shared shared;

  private final ReentrantLock lock = new ReentrantLock();
  private final AtomicBoolean inFlight = new AtomicBoolean();

  /** When the attempt in flight started, and whether its overrun was reported; by the timer. */
  private volatile Instant attemptStarted;

  private volatile boolean overrunReported;
  private final ResultRun run;
  private final AttemptStats stats;
  private String containerId;

  /** The pod IP of the latest snapshot, for the attempt. */
  private String podIp;

  private boolean onHold;
  private Scheduler.Task task;
  private boolean started;
  private boolean finished;
  private ProbeOutcome lastOutcome;

  /**
   * @param container the container as the pod status shows it now; empty while it has no status
   */
  public ProbeWorker(
      Key key,
      Prober prober,
      ProbeSettings settings,
      Supplier<Optional<ContainerSnapshot>> container,
      Shared shared) {
    this.key = Objects.requireNonNull(key, "key");
    this.prober = Objects.requireNonNull(prober, "prober");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.container = Objects.requireNonNull(container, "container");
    this.shared = Objects.requireNonNull(shared, "shared");
    this.run = new ResultRun(settings);
    this.stats = new AttemptStats(settings.period());
  }

  public Key key() {
    return key;
  }

  /** The outcome of the latest attempt that ran, for events and logs. */
  public Optional<ProbeOutcome> lastOutcome() {
    lock.lock();
    try {
      return Optional.ofNullable(lastOutcome);
    } finally {
      lock.unlock();
    }
  }

  /** How regularly the attempts ran so far. */
  public Stats stats() {
    lock.lock();
    try {
      return stats.snapshot(key);
    } finally {
      lock.unlock();
    }
  }

  /** The attempts that ran so far, by result. */
  public ResultCounts results() {
    lock.lock();
    try {
      return stats.results(key);
    } finally {
      lock.unlock();
    }
  }

  /** Whether the worker stopped, by {@link #stop()} or because its container ended for good. */
  public boolean finished() {
    lock.lock();
    try {
      return finished;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Starts from a known result for container {@code containerId}, published at once: what the API's
   * pod status said before jkubelet restarted, so that a restart does not flip a ready container to
   * unready until its first probe. A different container starts over as usual.
   */
  public void seed(String containerId, ProbeResult result) {
    lock.lock();
    try {
      this.containerId = containerId;
      run.seed(result);
      publish(result);
    } finally {
      lock.unlock();
    }
  }

  /** Puts the worker on the shared timer, ticking every period. Idempotent. */
  @Override
  public void start() {
    lock.lock();
    try {
      if (started || finished) {
        return;
      }
      started = true;
      long periodMs = settings.period().toMillis();
      double r = Math.min(Math.max(shared.random().getAsDouble(), 0.0), 1.0);
      Duration first = Duration.ofMillis((long) (r * periodMs));
      task = shared.timer().atFixedRate(first, Duration.ofMillis(periodMs), this::tick);
      log.debug("Prober {} started, first attempt in {}ms", key, first.toMillis());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Takes the worker off the timer and forgets the published result, as upstream on stop.
   * Idempotent. An attempt in flight finishes, but publishes nothing.
   */
  @Override
  public void stop() {
    lock.lock();
    try {
      cancel();
      if (containerId != null) {
        shared.results().remove(containerId, key.type());
      }
    } finally {
      lock.unlock();
    }
  }

  private void cancel() {
    if (task != null) {
      task.cancel();
      task = null;
    }
    finished = true;
  }

  @Override
  public Health healthy() {
    lock.lock();
    try {
      return started ? Health.OK : Health.failing("Prober " + key + " not started");
    } finally {
      lock.unlock();
    }
  }

  /** On the timer: hands one attempt to the attempt executor, unless one is still running. */
  private void tick() {
    if (!inFlight.compareAndSet(false, true)) {
      stats.skipped(); // never the lock: the shared timer must not wait on any worker
      reportOverrun();
      return;
    }
    attemptStarted = shared.clock().instant();
    overrunReported = false;
    try {
      shared.attempts().execute(this::attempt);
    } catch (RejectedExecutionException e) {
      inFlight.set(false); // shutting down
    }
  }

  /**
   * A skipped tick is routine while an attempt runs within its timeout (a period shorter than the
   * timeout); an attempt that ran past its timeout and a grace period has hung somewhere, and the
   * container goes unprobed until it returns: a WARN, once per attempt.
   */
  private void reportOverrun() {
    Instant since = attemptStarted;
    Duration running =
        since == null ? Duration.ZERO : Duration.between(since, shared.clock().instant());
    if (running.compareTo(settings.timeout().plus(OVERRUN_GRACE)) <= 0 || overrunReported) {
      log.debug("Prober {}: previous attempt still running; tick skipped", key);
      return;
    }
    overrunReported = true;
    log.warn(
        "Prober {}: an attempt has run for {}s, past its timeout of {}s; not probing again until it"
            + " returns",
        key,
        running.toSeconds(),
        settings.timeout().toSeconds());
  }

  private void attempt() {
    try {
      if (!probeOnce()) {
        log.debug("Prober {} stopped: container terminated for good", key);
      }
    } catch (RuntimeException e) {
      // Never let one bad attempt end the worker: log it and try again next period.
      log.warn("Prober {} attempt failed unexpectedly", key, e);
    } finally {
      inFlight.set(false);
    }
  }

  /**
   * Runs one step, as upstream {@code worker.doProbe}: follows the container id, waits for the
   * initial delay and for startup, runs an attempt, and publishes a result once a threshold is
   * crossed.
   *
   * @return whether the worker should keep going
   */
  public boolean probeOnce() {
    ProbeTarget target;
    String attemptOn;
    lock.lock();
    try {
      if (finished) {
        return false;
      }
      Step step = prepare();
      if (step == Step.STOP) {
        cancel();
        return false;
      }
      if (step == Step.WAIT) {
        return true;
      }
      attemptOn = containerId;
      target = new ProbeTarget(podIp, containerId, settings.timeout());
    } finally {
      lock.unlock();
    }
    // The attempt runs without the lock: stop() and the stats never wait for a slow probe.
    ProbeOutcome outcome = prober.probe(target);
    lock.lock();
    try {
      if (finished || !attemptOn.equals(containerId)) {
        return !finished; // stopped, or a new container, while the attempt ran: drop it
      }
      shared.listener().attempted(key, containerId, outcome);
      conclude(outcome);
      return true;
    } finally {
      lock.unlock();
    }
  }

  private enum Step {
    PROBE,
    WAIT,
    STOP
  }

  /** What to do this period, as upstream's {@code doProbe} up to the attempt; under the lock. */
  private Step prepare() {
    Optional<ContainerSnapshot> snap = container.get();
    if (snap.isEmpty()) {
      return Step.WAIT; // no status yet
    }
    ContainerSnapshot c = snap.get();
    if (c.terminal() && !c.running()) {
      if (containerId != null) {
        publish(ProbeResult.FAILURE);
      }
      return Step.STOP;
    }
    if (c.containerId() == null || c.containerId().isEmpty()) {
      return Step.WAIT;
    }
    if (!c.containerId().equals(containerId)) {
      follow(c.containerId());
    }
    if (onHold) {
      return Step.WAIT; // a failed liveness or startup probe waits for a new container
    }
    if (!c.running()) {
      publish(ProbeResult.FAILURE);
      return Step.WAIT;
    }
    Instant now = shared.clock().instant();
    if (c.startedAt() != null
        && Duration.between(c.startedAt(), now).compareTo(settings.initialDelay()) < 0) {
      return Step.WAIT;
    }
    if (key.type() == ProbeType.STARTUP ? c.started() : !c.started()) {
      return Step.WAIT; // startup is done for a startup probe; not yet for the others
    }
    stats.attempted(now);
    podIp = c.podIp();
    return Step.PROBE;
  }

  /** A new container: the old one's state goes, as if its worker were replaced; under the lock. */
  private void follow(String newId) {
    if (containerId != null) {
      shared.results().remove(containerId, key.type());
    }
    containerId = newId;
    publish(key.type().initialResult());
    onHold = false;
    run.reset();
  }

  /** Counts the attempt's result and publishes once a threshold is crossed; under the lock. */
  private void conclude(ProbeOutcome outcome) {
    lastOutcome = outcome;
    ProbeResult result = outcome.result();
    stats.concluded(result);
    if (result == ProbeResult.UNKNOWN) {
      log.debug("Prober {} attempt inconclusive: {}", key, outcome.output());
      return; // as upstream with a prober error: throw the result away
    }
    if (result == ProbeResult.FAILURE) {
      log.debug("Prober {} attempt failed: {}", key, outcome.output());
    } else {
      log.debug("Prober {} attempt succeeded", key);
    }
    if (!run.add(result)) {
      return;
    }
    if (publish(result)) {
      log.info("Prober {} result {} ({})", key, result, outcome.output().strip());
    }
    if (key.type() != ProbeType.READINESS && result == ProbeResult.FAILURE) {
      onHold = true;
      run.clear();
    }
  }

  /** Sets the current container's result; whether it changed. Under the lock. */
  private boolean publish(ProbeResult result) {
    return shared.results().set(key.podUid(), key.containerName(), containerId, key.type(), result);
  }
}
