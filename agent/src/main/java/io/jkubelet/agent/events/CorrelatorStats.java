package io.jkubelet.agent.events;

import java.util.Map;

/**
 * A snapshot of what the {@link EventCorrelator} did to events other than pass them through.
 *
 * <p>Causes are {@link EventCorrelator#DROPPED_SPAM_FILTER}, {@link EventCorrelator#AGGREGATED} and
 * {@link EventCorrelator#DEDUPLICATED}. A dropped event counts only as dropped; an event that was
 * aggregated and then patched onto the existing aggregate counts once under each of those two
 * causes.
 *
 * @param byCause cause to count, e.g. {@code "dropped/spam-filter" -> 7}
 * @param byReason {@code "<event reason>/<cause>"} to count, e.g. {@code
 *     "BackOff/dropped/spam-filter" -> 1}, so that one can see which reasons were lost
 */
public record CorrelatorStats(Map<String, Long> byCause, Map<String, Long> byReason) {
  public CorrelatorStats {
    byCause = Map.copyOf(byCause);
    byReason = Map.copyOf(byReason);
  }

  /** The count for a cause, 0 if it never happened. */
  public long cause(String cause) {
    return byCause.getOrDefault(cause, 0L);
  }

  /** The count for one reason and cause, 0 if it never happened. */
  public long reason(String reason, String cause) {
    return byReason.getOrDefault(reason + "/" + cause, 0L);
  }
}
