package io.jkubelet.agent.prober;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How regularly one worker's attempts started, on the injected clock: their number, the first and
 * last start, the interval furthest from the period, the ticks skipped, and the attempts by result
 * (for {@code prober_probe_total}).
 *
 * <p>Thread-safety: the worker's lock guards everything but {@code skipped}, which the timer counts
 * without any lock.
 */
final class AttemptStats {
  private final Duration period;
  private final AtomicLong skipped = new AtomicLong();
  private long attempts;
  private Instant first;
  private Instant last;
  private Duration worst;
  private long successful;
  private long failed;
  private long unknown;

  AttemptStats(Duration period) {
    this.period = period;
  }

  /** An attempt starts now. Under the worker's lock. */
  void attempted(Instant now) {
    if (last != null) {
      Duration interval = Duration.between(last, now);
      Duration off = interval.minus(period).abs();
      if (worst == null || off.compareTo(worst.minus(period).abs()) > 0) {
        worst = interval;
      }
    } else {
      first = now;
    }
    last = now;
    attempts++;
  }

  /** An attempt that ran ended with this result. Under the worker's lock. */
  void concluded(ProbeResult result) {
    switch (result) {
      case SUCCESS -> successful++;
      case FAILURE -> failed++;
      case UNKNOWN -> unknown++;
    }
  }

  /** The attempts by result so far. Under the worker's lock. */
  ProbeWorker.ResultCounts results(ProbeWorker.Key key) {
    return new ProbeWorker.ResultCounts(key, successful, failed, unknown);
  }

  /** A tick found the previous attempt still running. Lock-free. */
  void skipped() {
    skipped.incrementAndGet();
  }

  /** The numbers so far. Under the worker's lock. */
  ProbeWorker.Stats snapshot(ProbeWorker.Key key) {
    Duration mean =
        attempts < 2 ? Duration.ZERO : Duration.between(first, last).dividedBy(attempts - 1);
    return new ProbeWorker.Stats(
        key, period, attempts, mean, worst == null ? Duration.ZERO : worst, skipped.get());
  }
}
