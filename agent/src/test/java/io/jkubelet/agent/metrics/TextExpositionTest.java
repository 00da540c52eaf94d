package io.jkubelet.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.FakeClock;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.StateSetSnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * jkubelet's text exposition writes what the Prometheus client's own writer writes, byte for byte:
 * every metric type, escapes in help and label values, special numbers, timestamps, names that need
 * quoting, and a real scrape of the agent's metrics.
 */
class TextExpositionTest {
  private static final PrometheusTextFormatWriter CLIENT =
      PrometheusTextFormatWriter.builder().setTimestampsInMs(true).build();
  private static final Labels ODD = Labels.of("path", "a\\b\"c\nd", "zone", "é");

  private static String client(MetricSnapshots s, EscapingScheme scheme) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CLIENT.write(out, s, scheme);
    return out.toString(StandardCharsets.UTF_8);
  }

  private static String ours(MetricSnapshots s, EscapingScheme scheme) {
    return new String(TextExposition.write(s, scheme), StandardCharsets.UTF_8);
  }

  private static void same(MetricSnapshots s, EscapingScheme scheme) throws Exception {
    String expected = client(s, scheme);
    assertThat(expected).isNotEmpty();
    assertThat(ours(s, scheme)).isEqualTo(expected);
  }

  @ParameterizedTest
  @EnumSource(
      value = EscapingScheme.class,
      names = {"UNDERSCORE_ESCAPING", "ALLOW_UTF8"})
  void countersAndGaugesWithEscapesSpecialNumbersAndTimestamps(EscapingScheme scheme)
      throws Exception {
    same(
        MetricSnapshots.of(
            CounterSnapshot.builder()
                .name("requests")
                .help("Requests \\ handled\nby path.")
                .dataPoint(
                    CounterSnapshot.CounterDataPointSnapshot.builder().value(3).labels(ODD).build())
                .dataPoint(
                    CounterSnapshot.CounterDataPointSnapshot.builder()
                        .value(Double.POSITIVE_INFINITY)
                        .labels(Labels.of("path", "/"))
                        .scrapeTimestampMillis(1_700_000_000_123L)
                        .build())
                .build(),
            GaugeSnapshot.builder()
                .name("temperature_celsius")
                .dataPoint(
                    GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .value(Double.NEGATIVE_INFINITY)
                        .build())
                .dataPoint(
                    GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .value(Double.NaN)
                        .labels(Labels.of("k", "v"))
                        .build())
                .dataPoint(
                    GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .value(1e-9)
                        .labels(Labels.of("k", "w"))
                        .build())
                .build(),
            GaugeSnapshot.builder()
                .name("dotted.name")
                .help("A name outside the legacy set.")
                .dataPoint(
                    GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .value(1)
                        .labels(Labels.of("label.with.dots", "x"))
                        .build())
                .build(),
            CounterSnapshot.builder().name("empty").build()),
        scheme);
  }

  @ParameterizedTest
  @EnumSource(
      value = EscapingScheme.class,
      names = {"UNDERSCORE_ESCAPING", "ALLOW_UTF8"})
  void histogramsSummariesInfoStateSetsAndUnknowns(EscapingScheme scheme) throws Exception {
    ClassicHistogramBuckets buckets =
        ClassicHistogramBuckets.of(
            new double[] {0.005, 0.1, Double.POSITIVE_INFINITY}, new long[] {1, 2, 3});
    same(
        MetricSnapshots.of(
            HistogramSnapshot.builder()
                .name("op_duration_seconds")
                .help("Durations.")
                .dataPoint(
                    HistogramSnapshot.HistogramDataPointSnapshot.builder()
                        .classicHistogramBuckets(buckets)
                        .sum(1.5)
                        .labels(ODD)
                        .build())
                .build(),
            HistogramSnapshot.builder()
                .name("queue_depth")
                .gaugeHistogram(true)
                .dataPoint(
                    HistogramSnapshot.HistogramDataPointSnapshot.builder()
                        .classicHistogramBuckets(buckets)
                        .sum(7)
                        .build())
                .build(),
            SummarySnapshot.builder()
                .name("latency_seconds")
                .help("Latency.")
                .dataPoint(
                    SummarySnapshot.SummaryDataPointSnapshot.builder()
                        .quantiles(Quantiles.of(new Quantile(0.5, 0.2), new Quantile(0.99, 1.1)))
                        .count(10)
                        .sum(3.25)
                        .labels(Labels.of("op", "x"))
                        .build())
                .build(),
            InfoSnapshot.builder()
                .name("build")
                .help("Build.")
                .dataPoint(
                    InfoSnapshot.InfoDataPointSnapshot.builder()
                        .labels(Labels.of("version", "1.2"))
                        .build())
                .build(),
            StateSetSnapshot.builder()
                .name("feature")
                .dataPoint(
                    StateSetSnapshot.StateSetDataPointSnapshot.builder()
                        .state("a", true)
                        .state("b\"", false)
                        .labels(Labels.of("env", "prod"))
                        .build())
                .build(),
            UnknownSnapshot.builder()
                .name("mystery")
                .dataPoint(
                    UnknownSnapshot.UnknownDataPointSnapshot.builder()
                        .value(42)
                        .scrapeTimestampMillis(5)
                        .build())
                .build()),
        scheme);
  }

  @ParameterizedTest
  @EnumSource(KubeletMetrics.Endpoint.class)
  void theAgentsOwnScrapeIsTheClientWritersToo(KubeletMetrics.Endpoint endpoint) throws Exception {
    KubeletMetrics metrics = new KubeletMetrics("node-1");
    FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
    FakeRuntime fake = new FakeRuntime(clock);
    var runtime = new InstrumentedRuntime(fake, metrics, clock);
    runtime.version();
    runtime.listContainers();
    fake.failNext("removeContainer", new RuntimeError(RuntimeError.Kind.UNAVAILABLE, "down"));
    try {
      runtime.removeContainer("x");
    } catch (RuntimeError expected) {
      // counted as an error
    }
    MetricSnapshots snapshots = metrics.snapshots(endpoint);
    assertThat(new String(metrics.scrape(endpoint), StandardCharsets.UTF_8))
        .isEqualTo(client(snapshots, EscapingScheme.UNDERSCORE_ESCAPING));
  }
}
