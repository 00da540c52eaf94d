package io.jkubelet.agent.metrics;

import io.jkubelet.agent.eviction.EvictionManager;
import io.jkubelet.config.EvictionSettings.Signal;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Upstream's eviction metrics: {@code kubelet_evictions{eviction_signal}}, the pods evicted per
 * signal, and the histogram {@code kubelet_eviction_stats_age_seconds{eviction_signal}}, the age of
 * the readings an eviction acted on.
 *
 * <p>NOTE: {@code kubelet_evictions} is upstream's name, without {@code _total}; the Java client
 * appends {@code _total} to every counter, so it is exposed untyped to keep the name.
 *
 * <p>Thread-safe.
 */
public final class EvictionMetrics implements EvictionManager.Listener, MultiCollector {
  private final Map<String, LongAdder> evictions = new ConcurrentHashMap<>();
  private final Histogram statsAge =
      Histogram.builder()
          .name("kubelet_eviction_stats_age_seconds")
          .help(
              "Time between when stats are collected, and when pod is evicted based on those"
                  + " stats by eviction signal")
          .classicOnly()
          .withoutExemplars()
          .classicUpperBounds(KubeletMetrics.DEF_BUCKETS)
          .labelNames("eviction_signal")
          .build();

  @Override
  public void evicted(String signal) {
    evictions.computeIfAbsent(signal, s -> new LongAdder()).increment();
  }

  @Override
  public void statsAge(Signal signal, double seconds) {
    statsAge.labelValues(signal.upstream()).observe(seconds);
  }

  @Override
  public MetricSnapshots collect() {
    UnknownSnapshot.Builder counts =
        UnknownSnapshot.builder()
            .name("kubelet_evictions")
            .help("Cumulative number of pod evictions by eviction signal");
    evictions.forEach(
        (signal, n) ->
            counts.dataPoint(
                UnknownSnapshot.UnknownDataPointSnapshot.builder()
                    .value(n.sum())
                    .labels(Labels.of("eviction_signal", signal))
                    .build()));
    return MetricSnapshots.of(counts.build(), statsAge.collect());
  }
}
