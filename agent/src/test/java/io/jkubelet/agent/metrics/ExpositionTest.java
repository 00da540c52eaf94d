package io.jkubelet.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * jkubelet's metrics and text format write what the Prometheus Java client writes for the same
 * metrics and the same updates, byte for byte: every type jkubelet uses, escapes in help and label
 * values, special numbers, timestamps, the order of families and of series. The client is a test
 * dependency only.
 */
class ExpositionTest {
  private static final PrometheusTextFormatWriter CLIENT =
      PrometheusTextFormatWriter.builder().setTimestampsInMs(true).build();
  private static final String ODD = "a\\b\"c\nd";
  private static final String HELP = "Requests \\ handled\nby path.";

  private static String client(MetricSnapshots s) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CLIENT.write(out, s, EscapingScheme.UNDERSCORE_ESCAPING);
    return out.toString(StandardCharsets.UTF_8);
  }

  private static String ours(Collector... collectors) {
    List<Family> families = new ArrayList<>();
    for (Collector c : collectors) {
      families.addAll(c.collect());
    }
    return new String(Exposition.write(families), StandardCharsets.UTF_8);
  }

  @Test
  void countersAndGaugesAsTheClientKeepsThem() throws Exception {
    PrometheusRegistry registry = new PrometheusRegistry();
    var theirCounter =
        io.prometheus.metrics.core.metrics.Counter.builder()
            .name("requests_total")
            .help(HELP)
            .labelNames("zone", "path")
            .withoutExemplars()
            .register(registry);
    var theirBytes =
        io.prometheus.metrics.core.metrics.Counter.builder()
            .name("pulled_bytes")
            .help("Bytes.")
            .withoutExemplars()
            .register(registry);
    var theirGauge =
        io.prometheus.metrics.core.metrics.Gauge.builder()
            .name("temperature_celsius")
            .labelNames("k")
            .withoutExemplars()
            .register(registry);
    var theirInFlight =
        io.prometheus.metrics.core.metrics.Gauge.builder()
            .name("in_flight")
            .help("Now.")
            .withoutExemplars()
            .register(registry);
    Counter counter = Counter.of("requests_total", HELP, "zone", "path");
    Counter bytes = Counter.of("pulled_bytes", "Bytes.");
    Gauge gauge = Gauge.of("temperature_celsius", null, "k");
    Gauge inFlight = Gauge.of("in_flight", "Now.");

    theirCounter.labelValues("z", "/b").inc(3);
    counter.labelValues("z", "/b").inc(3);
    theirCounter.labelValues("é", ODD).inc();
    counter.labelValues("é", ODD).inc();
    theirCounter.labelValues("a", "/").inc(Double.POSITIVE_INFINITY);
    counter.labelValues("a", "/").inc(Double.POSITIVE_INFINITY);
    theirBytes.inc(1234567);
    bytes.inc(1234567);
    for (double v : new double[] {Double.NEGATIVE_INFINITY, Double.NaN, 1e-9, 12.5, -3}) {
      theirGauge.labelValues(Double.toString(v)).set(v);
      gauge.labelValues(Double.toString(v)).set(v);
    }
    theirInFlight.inc();
    theirInFlight.inc();
    theirInFlight.dec();
    inFlight.inc();
    inFlight.inc();
    inFlight.dec();

    String expected = client(registry.scrape());
    assertThat(expected).contains("requests_total{path=\"a\\\\b\\\"c\\nd\",zone=\"é\"} 1.0");
    assertThat(ours(inFlight, counter, gauge, bytes)).isEqualTo(expected);
  }

  @Test
  void histogramsAsTheClientKeepsThem() throws Exception {
    PrometheusRegistry registry = new PrometheusRegistry();
    var theirs =
        io.prometheus.metrics.core.metrics.Histogram.builder()
            .name("op_duration_seconds")
            .help("Durations.")
            .classicOnly()
            .classicExponentialUpperBounds(.005, 2.5, 14)
            .labelNames("operation_type")
            .withoutExemplars()
            .register(registry);
    var theirIdle =
        io.prometheus.metrics.core.metrics.Histogram.builder()
            .name("idle_seconds")
            .help("Never observed.")
            .classicOnly()
            .classicUpperBounds(KubeletMetrics.DEF_BUCKETS)
            .withoutExemplars()
            .register(registry);
    Histogram ours =
        Histogram.of(
            "op_duration_seconds",
            "Durations.",
            Histogram.exponentialBounds(.005, 2.5, 14),
            "operation_type");
    Histogram idle = Histogram.of("idle_seconds", "Never observed.", KubeletMetrics.DEF_BUCKETS);
    // On a bound, between bounds, above every bound, zero, and negative.
    for (double v : new double[] {0.005, 0.006, 0.078125, 1e6, 0, -1, 3.2}) {
      theirs.labelValues("pull").observe(v);
      ours.labelValues("pull").observe(v);
    }
    theirs.labelValues(ODD).observe(0.2);
    ours.labelValues(ODD).observe(0.2);

    String expected = client(registry.scrape());
    assertThat(expected)
        .contains("op_duration_seconds_bucket{operation_type=\"pull\",le=\"+Inf\"} 7");
    assertThat(ours(ours, idle)).isEqualTo(expected);
  }

  @Test
  void collectorsFamiliesWithTimestampsUntypedAndEmpty() throws Exception {
    MetricSnapshots theirs =
        MetricSnapshots.of(
            CounterSnapshot.builder()
                .name("container_cpu_usage_seconds")
                .help("CPU.")
                .dataPoint(
                    CounterSnapshot.CounterDataPointSnapshot.builder()
                        .value(2.5)
                        .labels(Labels.of("pod", "b", "container", "c", "namespace", "n"))
                        .scrapeTimestampMillis(1_700_000_000_123L)
                        .build())
                .dataPoint(
                    CounterSnapshot.CounterDataPointSnapshot.builder()
                        .value(1)
                        .labels(Labels.of("pod", "a", "container", "c", "namespace", "n"))
                        .build())
                .build(),
            GaugeSnapshot.builder()
                .name("scrape_error")
                .help("Error.")
                .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(0).build())
                .build(),
            UnknownSnapshot.builder()
                .name("kubelet_evictions")
                .help("Evictions.")
                .dataPoint(
                    UnknownSnapshot.UnknownDataPointSnapshot.builder()
                        .value(4)
                        .labels(Labels.of("eviction_signal", "memory.available"))
                        .build())
                .build(),
            CounterSnapshot.builder().name("empty").help("Nothing yet.").build());
    Collector collector =
        () ->
            List.of(
                Family.counter("empty_total", "Nothing yet."),
                Family.untyped("kubelet_evictions", "Evictions.")
                    .add(4, "eviction_signal", "memory.available"),
                Family.gauge("scrape_error", "Error.").add(0),
                Family.counter("container_cpu_usage_seconds_total", "CPU.")
                    .add(2.5, 1_700_000_000_123L, "pod", "b", "container", "c", "namespace", "n")
                    .add(1, "pod", "a", "container", "c", "namespace", "n"));

    assertThat(ours(collector)).isEqualTo(client(theirs)).doesNotContain("empty");
  }

  @Test
  void aNameFromTwoCollectorsIsOneFamily() {
    Collector a = () -> List.of(Family.gauge("x", "X.").add(1, "k", "b"));
    Collector b = () -> List.of(Family.gauge("x", "X.").add(2, "k", "a"));

    assertThat(ours(a, b))
        .isEqualTo("# HELP x X.\n# TYPE x gauge\nx{k=\"a\"} 2.0\nx{k=\"b\"} 1.0\n");
  }

  @Test
  void oneSeriesTwiceOrANameWithTwoTypesFailsTheScrape() {
    Collector twice = () -> List.of(Family.gauge("x", "X.").add(1, "k", "a").add(2, "k", "a"));
    Collector typed = () -> List.of(Family.untyped("x", "X.").add(1, "k", "b"));
    Collector gauge = () -> List.of(Family.gauge("x", "X.").add(1, "k", "a"));

    assertThatThrownBy(() -> ours(twice))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one series given twice");
    assertThatThrownBy(() -> ours(gauge, typed))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("two types");

    Family readOnce = Family.gauge("x", "X.").add(1, "k", "a");
    readOnce.samples();
    readOnce.add(2, "k", "a");
    assertThatThrownBy(readOnce::samples).hasMessageContaining("one series given twice");
  }

  @Test
  void badLabelsAreRefusedWhereTheyAreGiven() {
    assertThatThrownBy(() -> Family.gauge("x", "X.").add(1, "k"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Family.gauge("x", "X.").add(1, "k", "a", "k", "b"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Counter.of("c", "C.", "k").labelValues("a", "b"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Counter.of("c", "C.").inc(-1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Family.gauge("x", "X.").add(1, "k", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Family.gauge("dotted.name", "X."))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a metric name");
  }

  @Test
  void aMetricsNamesAreCheckedWhenItIsMade() {
    assertThatThrownBy(() -> Gauge.of("dotted.name", "X."))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a metric name");
    assertThatThrownBy(() -> Counter.of("c", "C.", "k", "k"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a label name given twice: k");
    assertThatThrownBy(() -> Histogram.of("h", "H.", new double[] {1}, "a:b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a label name: a:b");
    assertThatThrownBy(() -> Gauge.of("g", "G.", "__name"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reserved __ prefix: __name");
    assertThatThrownBy(() -> Gauge.of("g", "G.", (String) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a label name: null");
    assertThat(Gauge.of("ns:g", "G.", "k_1").collect()).hasSize(1);
  }
}
