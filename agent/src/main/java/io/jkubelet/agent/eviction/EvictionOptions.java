package io.jkubelet.agent.eviction;

import io.jkubelet.config.EvictionSettings.Threshold;
import io.jkubelet.config.Records;
import java.time.Duration;
import java.util.List;

/**
 * The eviction manager's settings.
 *
 * @param thresholds hard and soft thresholds, as {@code config.EvictionSettings#thresholds} gives
 *     them
 * @param pressureTransitionPeriod how long a condition stays after its threshold was last met
 * @param maxPodGracePeriodSeconds the most a soft eviction gives a pod; the pod's own when less, or
 *     when this is 0 (none)
 * @param memoryPeriod how often the memory signals are read (the fast path, 100 ms)
 * @param fullPeriod how often every signal, disks and processes too, is read (1 s)
 * @param cleanupTimeout how long an eviction waits for its pod to stop before the next one (30 s,
 *     upstream's {@code podCleanupTimeout})
 */
public record EvictionOptions(
    List<Threshold> thresholds,
    Duration pressureTransitionPeriod,
    int maxPodGracePeriodSeconds,
    Duration memoryPeriod,
    Duration fullPeriod,
    Duration cleanupTimeout) {

  public static final Duration MEMORY_PERIOD = Duration.ofMillis(100);
  public static final Duration FULL_PERIOD = Duration.ofSeconds(1);
  public static final Duration CLEANUP_TIMEOUT = Duration.ofSeconds(30);

  public EvictionOptions {
    Records.requireNonNull(
        EvictionOptions.class,
        thresholds,
        pressureTransitionPeriod,
        memoryPeriod,
        fullPeriod,
        cleanupTimeout);
    thresholds = List.copyOf(thresholds);
    if (maxPodGracePeriodSeconds < 0) {
      throw new IllegalArgumentException("maxPodGracePeriodSeconds must not be negative");
    }
    if (!memoryPeriod.isPositive() || fullPeriod.compareTo(memoryPeriod) < 0) {
      throw new IllegalArgumentException(
          "memoryPeriod must be positive and at most fullPeriod, got "
              + memoryPeriod
              + " and "
              + fullPeriod);
    }
  }

  /** The options with the default periods. */
  public static EvictionOptions of(
      List<Threshold> thresholds, Duration pressureTransitionPeriod, int maxPodGracePeriod) {
    return new EvictionOptions(
        thresholds,
        pressureTransitionPeriod,
        maxPodGracePeriod,
        MEMORY_PERIOD,
        FULL_PERIOD,
        CLEANUP_TIMEOUT);
  }

  /**
   * How long upstream's eviction waits for the kill itself ({@code killPodNow}): half as long again
   * as its grace period, at least 10 s. Upstream's kill blocks the eviction that long before its
   * cleanup wait ({@code podCleanupTimeout}) begins; jkubelet's kill runs on the pod's worker, so
   * the wait for the pod to be cleaned up covers both. Counting only the cleanup wait, a pod whose
   * kill took over 30 s (the guest bed's TCG guest, a BestEffort pod of 2.5 GiB) had the next one,
   * a Burstable pod within its requests, evicted while its own memory was not yet freed.
   */
  static Duration killWait(long graceSeconds) {
    return Duration.ofSeconds(Math.max(10, graceSeconds + graceSeconds / 2));
  }
}
