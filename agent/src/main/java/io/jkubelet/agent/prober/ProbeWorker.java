package io.jkubelet.agent.prober;

import io.jkubelet.agent.util.Guard;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.config.Records;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
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
 * <p>Thread-safe: {@code guard} guards the probing state ({@code started}, {@code finished}, the
 * {@link ProbeState}, and the ticker's task); it is never held during an attempt's I/O, so {@link
 * #stop()} from the sync loop never waits for a slow probe. An attempt whose worker stopped, or
 * whose container changed, meanwhile is dropped. It is a {@link Guard}, not {@code synchronized},
 * so that virtual threads never pin their carrier on it. It also guards the worker's {@link
 * AttemptStats}, but for the skipped ticks, which the timer counts without it.
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

  /**
   * What a worker's two halves, its {@link ProbeState} and its {@link ProbeTicker}, work from: its
   * key and settings, what every worker shares, and its own stats.
   */
  record Context(Key key, ProbeSettings settings, Shared shared, AttemptStats stats) {}

  private final Key key;
  private final Prober prober;
  private final Supplier<Optional<ContainerSnapshot>> container;
  private final Shared shared;
  private final Guard guard = new Guard();
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
    this.container = Objects.requireNonNull(container, "container");
    this.shared = Objects.requireNonNull(shared, "shared");
    this.stats = new AttemptStats(Objects.requireNonNull(settings, "settings").period());
    Context ctx = new Context(key, settings, shared, stats);
    this.state = new ProbeState(ctx);
    this.ticker = new ProbeTicker(ctx, this::probeOnce);
  }

  public Key key() {
    return key;
  }

  /** The outcome of the latest attempt that ran, for events and logs. */
  public Optional<ProbeOutcome> lastOutcome() {
    return guard.get(() -> Optional.ofNullable(state.lastOutcome()));
  }

  /** How regularly the attempts ran so far. */
  public Stats stats() {
    return guard.get(() -> stats.snapshot(key));
  }

  /** The attempts that ran so far, by result. */
  public ResultCounts results() {
    return guard.get(() -> stats.results(key));
  }

  /** Whether the worker stopped, by {@link #stop()} or because its container ended for good. */
  public boolean finished() {
    return guard.get(() -> finished);
  }

  /**
   * Starts from a known result for container {@code containerId}, published at once: what the API's
   * pod status said before jkubelet restarted, so that a restart does not flip a ready container to
   * unready until its first probe. A different container starts over as usual.
   */
  public void seed(String containerId, ProbeResult result) {
    guard.run(() -> state.seed(containerId, result));
  }

  /** Puts the worker on the shared timer, ticking every period. Idempotent. */
  @Override
  public void start() {
    guard.run(
        () -> {
          if (!started && !finished) {
            started = true;
            Duration first = ticker.schedule();
            log.debug("Prober {} started, first attempt in {}ms", key, first.toMillis());
          }
        });
  }

  /**
   * Takes the worker off the timer and forgets the published result, as upstream on stop.
   * Idempotent. An attempt in flight finishes, but publishes nothing.
   */
  @Override
  public void stop() {
    guard.run(
        () -> {
          cancel();
          state.forget();
        });
  }

  private void cancel() {
    ticker.cancel();
    finished = true;
  }

  @Override
  public Health healthy() {
    return guard.get(() -> started ? Health.OK : Health.failing("Prober " + key + " not started"));
  }

  /**
   * Runs one step, as upstream {@code worker.doProbe}: follows the container id, waits for the
   * initial delay and for startup, runs an attempt, and publishes a result once a threshold is
   * crossed.
   *
   * @return whether the worker should keep going
   */
  public boolean probeOnce() {
    ProbeState.Step step =
        guard.get(
            () -> {
              if (finished) {
                return new ProbeState.Step.Stop();
              }
              ProbeState.Step next = state.next(container.get());
              if (next instanceof ProbeState.Step.Stop) {
                cancel();
              }
              return next;
            });
    if (!(step instanceof ProbeState.Step.Probe(ProbeTarget target))) {
      return step instanceof ProbeState.Step.Wait;
    }
    // The attempt runs without the guard: stop() and the stats never wait for a slow probe.
    ProbeOutcome outcome = prober.probe(target);
    return guard.get(
        () -> {
          if (finished || !state.follows(target.containerId())) {
            return !finished; // stopped, or a new container, while the attempt ran: drop it
          }
          shared.listener().attempted(key, target.containerId(), outcome);
          state.conclude(outcome);
          return true;
        });
  }
}
