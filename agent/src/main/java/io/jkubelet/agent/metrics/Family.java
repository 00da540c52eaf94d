package io.jkubelet.agent.metrics;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

/**
 * Builds one metric family of a collector's scrape: a counter or a gauge, its data points added
 * with labels as name-value pairs. Counter names are given with their {@code _total}, as exposed.
 * Not thread-safe: one per scrape.
 */
final class Family {
  private final CounterSnapshot.Builder counter;
  private final GaugeSnapshot.Builder gauge;

  private Family(CounterSnapshot.Builder counter, GaugeSnapshot.Builder gauge) {
    this.counter = counter;
    this.gauge = gauge;
  }

  static Family counter(String nameWithTotal, String help) {
    if (!nameWithTotal.endsWith("_total")) {
      throw new IllegalArgumentException("a counter's name ends with _total: " + nameWithTotal);
    }
    String name = nameWithTotal.substring(0, nameWithTotal.length() - "_total".length());
    return new Family(CounterSnapshot.builder().name(name).help(help), null);
  }

  static Family gauge(String name, String help) {
    return new Family(null, GaugeSnapshot.builder().name(name).help(help));
  }

  /** Adds a data point; {@code labels} alternate names and values. */
  Family add(double value, String... labels) {
    return add(value, 0, labels);
  }

  /** Adds a data point with a sample timestamp (0 for none). */
  Family add(double value, long timestampMillis, String... labels) {
    Labels l = Labels.of(labels);
    if (counter != null) {
      var p = CounterDataPointSnapshot.builder().value(value).labels(l);
      if (timestampMillis != 0) {
        p.scrapeTimestampMillis(timestampMillis);
      }
      counter.dataPoint(p.build());
    } else {
      var p = GaugeDataPointSnapshot.builder().value(value).labels(l);
      if (timestampMillis != 0) {
        p.scrapeTimestampMillis(timestampMillis);
      }
      gauge.dataPoint(p.build());
    }
    return this;
  }

  MetricSnapshot build() {
    return counter != null ? counter.build() : gauge.build();
  }
}
