package io.jkubelet.agent.export;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What became of an exporter's documents and requests, counted by key ("written", "stale",
 * "dropped/not-started"…), for {@link Exporter#counts()}.
 *
 * <p>Thread-safe: adders in a concurrent map.
 */
final class ExportCounts {
  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  void increment(String key) {
    add(key, 1);
  }

  void add(String key, long n) {
    counts.computeIfAbsent(key, k -> new LongAdder()).add(n);
  }

  /** The counts so far, by key. */
  Map<String, Long> snapshot() {
    Map<String, Long> out = new TreeMap<>();
    counts.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }
}
