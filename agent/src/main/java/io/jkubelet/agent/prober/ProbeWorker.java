package io.jkubelet.agent.prober;

import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.config.Records;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
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
 * <p>Design: workers own no thread. {@link #start()} puts the worker's {@link ProbeTicker} on the
 * shared {@link Scheduler}: a tick every period, after a random first delay within the period, each
 * handing one attempt ({@link #probeOnce}) to the shared attempt executor. Around the attempt, its
 * {@link ProbeState} decides whether to probe, wait or stop, and applies the thresholds. Time
 * decisions (the initial delay, the stats) read the injected clock.
 *
 * <p>Thread-safe: {@code lock} guards the probing state ({@code started}, {@code finished}, the
 * {@link ProbeState}, and the ticker's task); it is never held during an attempt's I/O, so {@link
 * #stop()} from the sync loop never waits for a slow probe. An attempt whose worker stopped, or
 * whose container changed, meanwhile is dropped. It is a {@link ReentrantLock}, not {@code
 * synchronized}, so that virtual threads never pin their carrier on it. The lock also guards the
 * worker's {@link AttemptStats}, but for the skipped ticks, which the timer counts without it.
 */
public final class ProbeWorker implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(ProbeWorker.class);

  /** Identifies a worker: one per (pod UID, container name, probe type). */
  public record Key(String podUid, String containerName, ProbeType type) {
    public Key {
      Records.requireNonNull(Key.class, podUid, containerName, type);
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
      Records.requireNonNull(Shared.class, results, listener, clock, timer, attempts, random);
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

  private final Key key;
  private final Prober prober;
  private final Supplier<Optional<ContainerSnapshot>> container;
  private final Shared shared;
  private final ReentrantLock lock = new ReentrantLock();
  private final AttemptStats stats;
  private final ProbeState state;
  private final ProbeTicker ticker;
  private boolean started;
  private boolean finished;

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
    Objects.requireNonNull(settings, "settings");
    this.container = Objects.requireNonNull(container, "container");
    this.shared = Objects.requireNonNull(shared, "shared");
    this.stats = new AttemptStats(settings.period());
    this.state = new ProbeState(key, settings, shared.results(), shared.clock(), stats);
    this.ticker = new ProbeTicker(key, settings, shared, stats, this::probeOnce);
  }

  public Key key() {
    return key;
  }

  /** The outcome of the latest attempt that ran, for events and logs. */
  public Optional<ProbeOutcome> lastOutcome() {
    lock.lock();
    try {
      return Optional.ofNullable(state.lastOutcome());
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
      state.seed(containerId, result);
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
      Duration first = ticker.schedule();
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
      state.forget();
    } finally {
      lock.unlock();
    }
  }

  private void cancel() {
    ticker.cancel();
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

  /**
   * Runs one step, as upstream {@code worker.doProbe}: follows the container id, waits for the
   * initial delay and for startup, runs an attempt, and publishes a result once a threshold is
   * crossed.
   *
   * @return whether the worker should keep going
   */
  public boolean probeOnce() {
    ProbeTarget target;
    lock.lock();
    try {
      if (finished) {
        return false;
      }
      switch (state.next(container.get())) {
        case ProbeState.Step.Stop stop -> {
          cancel();
          return false;
        }
        case ProbeState.Step.Wait wait -> {
          return true;
        }
        case ProbeState.Step.Probe probe -> target = probe.target();
      }
    } finally {
      lock.unlock();
    }
    // The attempt runs without the lock: stop() and the stats never wait for a slow probe.
    ProbeOutcome outcome = prober.probe(target);
    lock.lock();
    try {
      if (finished || !state.follows(target.containerId())) {
        return !finished; // stopped, or a new container, while the attempt ran: drop it
      }
      shared.listener().attempted(key, target.containerId(), outcome);
      state.conclude(outcome);
      return true;
    } finally {
      lock.unlock();
    }
  }
}
