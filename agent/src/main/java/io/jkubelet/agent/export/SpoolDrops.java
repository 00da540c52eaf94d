package io.jkubelet.agent.export;

import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The documents a {@link Spool} dropped, counted by type ("Normal", "Warning") and reason, for
 * {@link SpoolStats#dropped}. Every dropped Warning is logged; a dropped Normal event is logged at
 * the 1st, 2nd, 4th, 8th… drop of its reason, so that a flood of them costs a few lines.
 *
 * <p>Not thread-safe: the spool's lock guards it.
 */
final class SpoolDrops {
  /** The spool's logger: these lines were the spool's before its drops were split from it. */
  private static final Logger log = LoggerFactory.getLogger(Spool.class);

  private final long maxBytes;

  /** "Normal"/"Warning" to (reason to count). */
  private final Map<String, Map<String, Long>> dropped = new TreeMap<>();

  /**
   * @param maxBytes the spool's bound, for the log lines
   */
  SpoolDrops(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** Counts and logs a document the spool did not take, {@code why} saying why. */
  void drop(ExportDocument d, String why) {
    String type = d.warning() ? "Warning" : "Normal";
    long n = count(type, d.reason());
    if (d.warning()) {
      log.warn(
          "event export: {}: dropped Warning event {} reason {} (max {} bytes)",
          why,
          d.id(),
          d.reason(),
          maxBytes);
    } else if (Long.bitCount(n) == 1) {
      log.warn(
          "event export: {}: dropped Normal event {} reason {} ({} Normal events of this reason"
              + " dropped so far; max {} bytes)",
          why,
          d.id(),
          d.reason(),
          n,
          maxBytes);
    }
  }

  /** Counts a spooled Normal event that a compaction left out; the compaction logs them. */
  void compactedNormal(String reason) {
    count("Normal", reason);
  }

  /** A copy of the counts. */
  Map<String, Map<String, Long>> snapshot() {
    Map<String, Map<String, Long>> drops = new TreeMap<>();
    dropped.forEach((t, m) -> drops.put(t, Map.copyOf(m)));
    return drops;
  }

  private long count(String type, String reason) {
    return dropped.computeIfAbsent(type, t -> new TreeMap<>()).merge(reason, 1L, Long::sum);
  }
}
