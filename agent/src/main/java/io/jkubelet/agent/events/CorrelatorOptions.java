package io.jkubelet.agent.events;

import java.time.Duration;
import java.util.Objects;

/**
 * How the {@link EventCorrelator} aggregates, deduplicates and rate-limits events.
 *
 * @param lruSize entries in each of the three LRU caches (aggregation, dedup, spam filter)
 * @param maxSimilarEvents distinct messages of one (source, object, type, reason) within {@code
 *     aggregateWindow} at which events are combined into one aggregate event
 * @param aggregateWindow how long a gap between similar events may be before the count of distinct
 *     messages starts over
 * @param refillPerSecond tokens added per second to each (source, object) bucket of the spam
 *     filter; positive, and may be fractional
 * @param burst size of each spam-filter bucket, which starts full
 * @param protectWarnings jkubelet's fix of upstream's silent drops: Warnings and the first
 *     occurrence of each reason for an object never spend a token and are never dropped
 */
public record CorrelatorOptions(
    int lruSize,
    int maxSimilarEvents,
    Duration aggregateWindow,
    double refillPerSecond,
    int burst,
    boolean protectWarnings) {

  /** client-go's {@code defaultSpamQPS}: one token per 5 minutes. */
  static final double DEFAULT_REFILL_PER_SECOND = 1.0 / 300;

  public CorrelatorOptions {
    Objects.requireNonNull(aggregateWindow, "aggregateWindow");
    if (lruSize < 1) {
      throw new IllegalArgumentException("lruSize must be positive: " + lruSize);
    }
    if (maxSimilarEvents < 1) {
      throw new IllegalArgumentException("maxSimilarEvents must be positive: " + maxSimilarEvents);
    }
    if (aggregateWindow.isNegative()) {
      throw new IllegalArgumentException(
          "aggregateWindow must not be negative: " + aggregateWindow);
    }
    if (!(refillPerSecond > 0) || Double.isInfinite(refillPerSecond)) {
      throw new IllegalArgumentException(
          "refillPerSecond must be finite and > 0: " + refillPerSecond);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("burst must be positive: " + burst);
    }
  }

  /** 4096, 10, 600 s, 1/300, 25, true. */
  public static CorrelatorOptions defaults() {
    return new CorrelatorOptions(
        4096, 10, Duration.ofSeconds(600), DEFAULT_REFILL_PER_SECOND, 25, true);
  }

  /** The same but protectWarnings=false: upstream's behaviour, for comparison. */
  public static CorrelatorOptions upstream() {
    return defaults().withProtectWarnings(false);
  }

  /**
   * The spam filter's bucket from jkubelet's {@code eventSpamRefillPeriod} (one token back per
   * period; client-go's 5 minutes) and {@code eventSpamBurst} (client-go's 25). Upstream's {@code
   * eventRecordQPS} and {@code eventBurst} are the event client's rate limit instead ({@link
   * ApiEventSink}), as upstream's.
   */
  public CorrelatorOptions withSpamFilter(Duration refillPeriod, int spamBurst) {
    if (refillPeriod.isNegative() || refillPeriod.isZero()) {
      throw new IllegalArgumentException("the refill period must be positive: " + refillPeriod);
    }
    return new CorrelatorOptions(
        lruSize,
        maxSimilarEvents,
        aggregateWindow,
        1e9 / refillPeriod.toNanos(),
        spamBurst,
        protectWarnings);
  }

  CorrelatorOptions withProtectWarnings(boolean protect) {
    return new CorrelatorOptions(
        lruSize, maxSimilarEvents, aggregateWindow, refillPerSecond, burst, protect);
  }
}
