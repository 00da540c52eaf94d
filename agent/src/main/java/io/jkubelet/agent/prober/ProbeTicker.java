package io.jkubelet.agent.prober;

import io.jkubelet.agent.util.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ticks one {@link ProbeWorker} on the shared timer and runs its attempts: the first tick after a
 * random delay within the period, so that probes of pods that start together (or of every pod after
 * a restart of jkubelet) spread out, then one every period. A tick hands one attempt to the shared
 * attempt executor and returns at once, so a slow attempt never delays another worker's tick; a
 * tick that finds the previous attempt still running is skipped and counted, as upstream's worker
 * would wait, and an attempt that has hung past its timeout is reported once.
 *
 * <p>Thread-safety: ticks run on the timer and never take the worker's lock (the shared timer must
 * not wait on any worker); {@code inFlight} lets one attempt run at a time. {@link #schedule} and
 * {@link #cancel} run under the worker's lock, which guards {@code task}.
 */
final class ProbeTicker {
  /** The worker's logger: these lines were the worker's before the ticker was split from it. */
  private static final Logger log = LoggerFactory.getLogger(ProbeWorker.class);

  /** How far past its timeout an attempt may run before {@link #reportOverrun} warns. */
  static final Duration OVERRUN_GRACE = Duration.ofSeconds(5);

  private final ProbeWorker.Context ctx;
  private final BooleanSupplier attempt;
  private final AtomicBoolean inFlight = new AtomicBoolean();

  /** When the attempt in flight started, and whether its overrun was reported; by the timer. */
  private volatile Instant attemptStarted;

  private volatile boolean overrunReported;
  private Scheduler.Task task;

  /**
   * @param attempt one attempt, as {@link ProbeWorker#probeOnce}: whether the worker keeps going
   */
  ProbeTicker(ProbeWorker.Context ctx, BooleanSupplier attempt) {
    this.ctx = Objects.requireNonNull(ctx, "ctx");
    this.attempt = Objects.requireNonNull(attempt, "attempt");
  }

  /** Puts the ticks on the shared timer; the delay of the first. Under the worker's lock. */
  Duration schedule() {
    long periodMs = ctx.settings().period().toMillis();
    double r = Math.min(Math.max(ctx.shared().random().getAsDouble(), 0.0), 1.0);
    Duration first = Duration.ofMillis((long) (r * periodMs));
    task = ctx.shared().timer().atFixedRate(first, Duration.ofMillis(periodMs), this::tick);
    return first;
  }

  /** Takes the ticks off the timer; an attempt in flight runs on. Under the worker's lock. */
  void cancel() {
    if (task != null) {
      task.cancel();
      task = null;
    }
  }

  /** On the timer: hands one attempt to the attempt executor, unless one is still running. */
  private void tick() {
    if (!inFlight.compareAndSet(false, true)) {
      ctx.stats().skipped(); // never the lock: the shared timer must not wait on any worker
      reportOverrun();
      return;
    }
    attemptStarted = ctx.shared().clock().instant();
    overrunReported = false;
    try {
      ctx.shared().attempts().execute(this::attempt);
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
        since == null ? Duration.ZERO : Duration.between(since, ctx.shared().clock().instant());
    if (running.compareTo(ctx.settings().timeout().plus(OVERRUN_GRACE)) <= 0 || overrunReported) {
      log.debug("Prober {}: previous attempt still running; tick skipped", ctx.key());
      return;
    }
    overrunReported = true;
    log.warn(
        "Prober {}: an attempt has run for {}s, past its timeout of {}s; not probing again until it"
            + " returns",
        ctx.key(),
        running.toSeconds(),
        ctx.settings().timeout().toSeconds());
  }

  /** On the attempt executor: one attempt, whatever it throws. */
  private void attempt() {
    try {
      if (!attempt.getAsBoolean()) {
        log.debug("Prober {} stopped: container terminated for good", ctx.key());
      }
    } catch (RuntimeException e) {
      // Never let one bad attempt end the worker: log it and try again next period.
      log.warn("Prober {} attempt failed unexpectedly", ctx.key(), e);
    } finally {
      inFlight.set(false);
    }
  }
}
