package io.jkubelet.agent.events;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A snapshot of what the {@link EventCorrelator} did to events other than pass them through.
 *
 * <p>A dropped event counts only as dropped; an event that was aggregated and then patched onto the
 * existing aggregate counts once under each of those two causes.
 *
 * @param byCause cause to count, e.g. {@code DROPPED_SPAM_FILTER -> 7}; causes that never happened
 *     are absent
 * @param byReason event reason to its counts by cause, e.g. {@code "BackOff" ->
 *     {DROPPED_SPAM_FILTER -> 1}}, so that one can see which reasons were lost; ordered by reason
 */
public record CorrelatorStats(Map<Cause, Long> byCause, Map<String, Map<Cause, Long>> byReason) {

  /** What the correlator did to an event. */
  public enum Cause {
    /** Dropped: the spam filter's bucket for the object was empty. */
    DROPPED_SPAM_FILTER("dropped/spam-filter"),
    /** Combined into an aggregate event {@code "(combined from similar events): ..."}. */
    AGGREGATED("aggregated"),
    /** A repeat, written as a patch of the existing event's count. */
    DEDUPLICATED("deduplicated");

    private final String label;

    Cause(String label) {
      this.label = label;
    }

    /** "dropped/spam-filter", "aggregated" or "deduplicated", for logs and counters. */
    public String label() {
      return label;
    }

    /** Whether the event was not written at all. */
    public boolean dropped() {
      return this == DROPPED_SPAM_FILTER;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  public CorrelatorStats {
    byCause = Collections.unmodifiableMap(copy(byCause));
    TreeMap<String, Map<Cause, Long>> reasons = new TreeMap<>();
    byReason.forEach((r, counts) -> reasons.put(r, Collections.unmodifiableMap(copy(counts))));
    byReason = Collections.unmodifiableMap(reasons);
  }

  /** The count for a cause, 0 if it never happened. */
  public long cause(Cause cause) {
    return byCause.getOrDefault(cause, 0L);
  }

  /** The count for one reason and cause, 0 if it never happened. */
  public long reason(String reason, Cause cause) {
    return byReason.getOrDefault(reason, Map.of()).getOrDefault(cause, 0L);
  }

  private static EnumMap<Cause, Long> copy(Map<Cause, Long> counts) {
    EnumMap<Cause, Long> out = new EnumMap<>(Cause.class);
    counts.forEach(
        (c, n) -> {
          if (n > 0) {
            out.put(c, n);
          }
        });
    return out;
  }

  /** The live counters behind the snapshots. Not thread-safe: the correlator's lock guards them. */
  static final class Counter {
    private final EnumMap<Cause, Long> byCause = new EnumMap<>(Cause.class);
    private final Map<String, EnumMap<Cause, Long>> byReason = new TreeMap<>();

    void count(String reason, Cause cause) {
      byCause.merge(cause, 1L, Long::sum);
      byReason.computeIfAbsent(reason, r -> new EnumMap<>(Cause.class)).merge(cause, 1L, Long::sum);
    }

    CorrelatorStats snapshot() {
      return new CorrelatorStats(byCause, Map.copyOf(byReason));
    }
  }
}
