package io.jkubelet.agent.metrics;

import io.jkubelet.agent.eviction.EvictionManager;
import io.jkubelet.config.EvictionSettings.Signal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Upstream's eviction metrics: {@code kubelet_evictions{eviction_signal}}, the pods evicted per
 * signal, and the histogram {@code kubelet_eviction_stats_age_seconds{eviction_signal}}, the age of
 * the readings an eviction acted on.
 *
 * <p>NOTE: {@code kubelet_evictions} is upstream's name, without {@code _total}; a counter is
 * exposed with {@code _total} (as the Prometheus Java client's are), so it is untyped to keep the
 * name.
 *
 * <p>Thread-safe.
 */
public final class EvictionMetrics implements EvictionManager.Listener, Collector {
  private final Map<String, LongAdder> evictions = new ConcurrentHashMap<>();
  private final Histogram statsAge =
      Histogram.of(
          "kubelet_eviction_stats_age_seconds",
          "Time between when stats are collected, and when pod is evicted based on those stats by"
              + " eviction signal",
          KubeletMetrics.DEF_BUCKETS,
          "eviction_signal");

  @Override
  public void evicted(String signal) {
    evictions.computeIfAbsent(signal, s -> new LongAdder()).increment();
  }

  @Override
  public void statsAge(Signal signal, double seconds) {
    statsAge.labelValues(signal.upstream()).observe(seconds);
  }

  @Override
  public List<Family> collect() {
    Family counts =
        Family.untyped(
            "kubelet_evictions", "Cumulative number of pod evictions by eviction signal");
    evictions.forEach((signal, n) -> counts.add(n.sum(), "eviction_signal", signal));
    return List.of(counts, statsAge.collect().getFirst());
  }
}
