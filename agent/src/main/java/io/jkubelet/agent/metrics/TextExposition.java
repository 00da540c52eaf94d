package io.jkubelet.agent.metrics;

import static io.prometheus.metrics.model.snapshots.SnapshotEscaper.escapeMetricSnapshot;
import static io.prometheus.metrics.model.snapshots.SnapshotEscaper.getExpositionBaseMetadataName;
import static io.prometheus.metrics.model.snapshots.SnapshotEscaper.getLegacyGaugeName;
import static io.prometheus.metrics.model.snapshots.SnapshotEscaper.getMetadataName;
import static io.prometheus.metrics.model.snapshots.SnapshotEscaper.getSnapshotLabelName;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.TextFormatUtil;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.StateSetSnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;

/**
 * The Prometheus text format (0.0.4) of a scrape, the same bytes as the Prometheus client's {@code
 * PrometheusTextFormatWriter} (without {@code _created} lines, timestamps in milliseconds) writes,
 * into one {@link StringBuilder}. The client's writer passes every name, label and number through a
 * {@code BufferedWriter} one small write at a time, each under the writer's lock: 2 to 3 ms of CPU
 * for the 37 KB of a node's {@code /metrics} under the daemon's client compiler, most of a GET.
 * {@code TextExpositionTest} holds the two to the same output, metric type by metric type.
 *
 * <p>Stateless; thread-safe.
 */
final class TextExposition {
  private TextExposition() {}

  /** The snapshots in the text format, UTF-8. */
  static byte[] write(MetricSnapshots snapshots, EscapingScheme scheme) {
    StringBuilder out = new StringBuilder(32 * 1024);
    for (MetricSnapshot s : TextFormatUtil.mergeDuplicates(snapshots)) {
      MetricSnapshot snapshot = escapeMetricSnapshot(s, scheme);
      if (snapshot.getDataPoints().isEmpty()) {
        continue;
      }
      switch (snapshot) {
        case CounterSnapshot c -> counter(out, c, scheme);
        case GaugeSnapshot g -> gauge(out, g, s.getMetadata().getOriginalName(), scheme);
        case HistogramSnapshot h -> histogram(out, h, scheme);
        case SummarySnapshot m -> summary(out, m, scheme);
        case InfoSnapshot i -> info(out, i, scheme);
        case StateSetSnapshot st -> stateSet(out, st, scheme);
        case UnknownSnapshot u -> unknown(out, u, scheme);
        default -> {}
      }
    }
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void counter(StringBuilder out, CounterSnapshot snapshot, EscapingScheme scheme) {
    String name = expositionName(snapshot.getMetadata(), "_total", scheme);
    values(
        out,
        name,
        "counter",
        snapshot,
        scheme,
        (StringBuilder o, CounterSnapshot.CounterDataPointSnapshot p) -> number(o, p.getValue()));
  }

  private static void gauge(
      StringBuilder out, GaugeSnapshot snapshot, String originalName, EscapingScheme scheme) {
    String name = getLegacyGaugeName(snapshot.getMetadata(), originalName, scheme);
    values(
        out,
        name,
        "gauge",
        snapshot,
        scheme,
        (StringBuilder o, GaugeSnapshot.GaugeDataPointSnapshot p) -> number(o, p.getValue()));
  }

  /** A family whose samples are one value each: a counter, a gauge, an info, an unknown. */
  private static <P extends DataPointSnapshot> void values(
      StringBuilder out,
      String name,
      String type,
      MetricSnapshot snapshot,
      EscapingScheme scheme,
      BiConsumer<StringBuilder, P> value) {
    metadata(out, name, type, snapshot.getMetadata());
    for (DataPointSnapshot data : snapshot.getDataPoints()) {
      nameAndLabels(out, name, data.getLabels(), scheme, null, 0);
      @SuppressWarnings("unchecked")
      P point = (P) data;
      value.accept(out, point);
      end(out, data);
    }
  }

  private static void histogram(
      StringBuilder out, HistogramSnapshot snapshot, EscapingScheme scheme) {
    MetricMetadata metadata = snapshot.getMetadata();
    String name = getMetadataName(metadata, scheme);
    metadata(out, name, "histogram", metadata);
    for (HistogramSnapshot.HistogramDataPointSnapshot data : snapshot.getDataPoints()) {
      ClassicHistogramBuckets buckets =
          data.getClassicBuckets().isEmpty()
              ? ClassicHistogramBuckets.of(
                  new double[] {Double.POSITIVE_INFINITY}, new long[] {data.getCount()})
              : data.getClassicBuckets();
      long cumulative = 0;
      for (int i = 0; i < buckets.size(); i++) {
        cumulative += buckets.getCount(i);
        nameAndLabels(
            out, name + "_bucket", data.getLabels(), scheme, "le", buckets.getUpperBound(i));
        out.append(cumulative);
        end(out, data);
      }
      if (!snapshot.isGaugeHistogram()) {
        countAndSum(out, name, "_count", "_sum", data, scheme);
      }
    }
    if (snapshot.isGaugeHistogram()) {
      gaugeCountSum(out, snapshot, name, "_gcount", true, scheme);
      gaugeCountSum(out, snapshot, name, "_gsum", false, scheme);
    }
  }

  /** A gauge histogram's {@code _gcount} or {@code _gsum}, written as a gauge of its own. */
  private static void gaugeCountSum(
      StringBuilder out,
      HistogramSnapshot snapshot,
      String name,
      String suffix,
      boolean count,
      EscapingScheme scheme) {
    boolean metadataWritten = false;
    for (HistogramSnapshot.HistogramDataPointSnapshot data : snapshot.getDataPoints()) {
      if (count ? data.hasCount() : data.hasSum()) {
        if (!metadataWritten) {
          metadata(out, name + suffix, "gauge", snapshot.getMetadata());
          metadataWritten = true;
        }
        nameAndLabels(out, name + suffix, data.getLabels(), scheme, null, 0);
        if (count) {
          out.append(data.getCount());
        } else {
          number(out, data.getSum());
        }
        end(out, data);
      }
    }
  }

  private static void summary(StringBuilder out, SummarySnapshot snapshot, EscapingScheme scheme) {
    MetricMetadata metadata = snapshot.getMetadata();
    String name = getMetadataName(metadata, scheme);
    boolean metadataWritten = false;
    for (SummarySnapshot.SummaryDataPointSnapshot data : snapshot.getDataPoints()) {
      if (data.getQuantiles().size() == 0 && !data.hasCount() && !data.hasSum()) {
        continue;
      }
      if (!metadataWritten) {
        metadata(out, name, "summary", metadata);
        metadataWritten = true;
      }
      for (Quantile q : data.getQuantiles()) {
        nameAndLabels(out, name, data.getLabels(), scheme, "quantile", q.getQuantile());
        number(out, q.getValue());
        end(out, data);
      }
      countAndSum(out, name, "_count", "_sum", data, scheme);
    }
  }

  private static void countAndSum(
      StringBuilder out,
      String name,
      String countSuffix,
      String sumSuffix,
      DataPointSnapshot data,
      EscapingScheme scheme) {
    boolean hasCount;
    long count;
    boolean hasSum;
    double sum;
    if (data instanceof HistogramSnapshot.HistogramDataPointSnapshot h) {
      hasCount = h.hasCount();
      count = hasCount ? h.getCount() : 0;
      hasSum = h.hasSum();
      sum = hasSum ? h.getSum() : 0;
    } else {
      SummarySnapshot.SummaryDataPointSnapshot m = (SummarySnapshot.SummaryDataPointSnapshot) data;
      hasCount = m.hasCount();
      count = hasCount ? m.getCount() : 0;
      hasSum = m.hasSum();
      sum = hasSum ? m.getSum() : 0;
    }
    if (hasCount) {
      nameAndLabels(out, name + countSuffix, data.getLabels(), scheme, null, 0);
      out.append(count);
      end(out, data);
    }
    if (hasSum) {
      nameAndLabels(out, name + sumSuffix, data.getLabels(), scheme, null, 0);
      number(out, sum);
      end(out, data);
    }
  }

  private static void info(StringBuilder out, InfoSnapshot snapshot, EscapingScheme scheme) {
    String name = expositionName(snapshot.getMetadata(), "_info", scheme);
    values(
        out,
        name,
        "gauge",
        snapshot,
        scheme,
        (StringBuilder o, InfoSnapshot.InfoDataPointSnapshot p) -> o.append('1'));
  }

  private static void stateSet(
      StringBuilder out, StateSetSnapshot snapshot, EscapingScheme scheme) {
    MetricMetadata metadata = snapshot.getMetadata();
    String name = getMetadataName(metadata, scheme);
    metadata(out, name, "gauge", metadata);
    for (StateSetSnapshot.StateSetDataPointSnapshot data : snapshot.getDataPoints()) {
      Labels labels = data.getLabels();
      for (int i = 0; i < data.size(); i++) {
        out.append(name).append('{');
        for (int j = 0; j < labels.size(); j++) {
          if (j > 0) {
            out.append(',');
          }
          out.append(getSnapshotLabelName(labels, j, scheme)).append("=\"");
          escaped(out, labels.getValue(j));
          out.append('"');
        }
        if (!labels.isEmpty()) {
          out.append(',');
        }
        out.append(name).append("=\"");
        escaped(out, data.getName(i));
        out.append("\"} ").append(data.isTrue(i) ? '1' : '0');
        end(out, data);
      }
    }
  }

  private static void unknown(StringBuilder out, UnknownSnapshot snapshot, EscapingScheme scheme) {
    String name = getMetadataName(snapshot.getMetadata(), scheme);
    values(
        out,
        name,
        "untyped",
        snapshot,
        scheme,
        (StringBuilder o, UnknownSnapshot.UnknownDataPointSnapshot p) -> number(o, p.getValue()));
  }

  /**
   * The name of a counter or an info metric: the original name when it already ends with the
   * suffix, else the base name and the suffix.
   */
  private static String expositionName(
      MetricMetadata metadata, String suffix, EscapingScheme scheme) {
    String base = getExpositionBaseMetadataName(metadata, scheme);
    return base.endsWith(suffix) ? base : getMetadataName(metadata, scheme) + suffix;
  }

  private static void metadata(
      StringBuilder out, String name, String type, MetricMetadata metadata) {
    String help = metadata.getHelp();
    if (help != null && !help.isEmpty()) {
      out.append("# HELP ");
      name(out, name, true);
      out.append(' ');
      for (int i = 0; i < help.length(); i++) {
        char c = help.charAt(i);
        switch (c) {
          case '\\' -> out.append("\\\\");
          case '\n' -> out.append("\\n");
          default -> out.append(c);
        }
      }
      out.append('\n');
    }
    out.append("# TYPE ");
    name(out, name, true);
    out.append(' ').append(type).append('\n');
  }

  /** A sample's name and labels (and the {@code le} or {@code quantile} label), then a space. */
  private static void nameAndLabels(
      StringBuilder out,
      String name,
      Labels labels,
      EscapingScheme scheme,
      String extraName,
      double extraValue) {
    boolean inBraces = !PrometheusNaming.isValidLegacyMetricName(name);
    if (inBraces) {
      out.append('{');
    }
    name(out, name, true);
    if (!labels.isEmpty() || extraName != null) {
      if (!inBraces) {
        out.append('{');
      }
      for (int i = 0; i < labels.size(); i++) {
        if (i > 0 || inBraces) {
          out.append(',');
        }
        name(out, getSnapshotLabelName(labels, i, scheme), false);
        out.append("=\"");
        escaped(out, labels.getValue(i));
        out.append('"');
      }
      if (extraName != null) {
        if (!labels.isEmpty() || inBraces) {
          out.append(',');
        }
        out.append(extraName).append("=\"");
        number(out, extraValue);
        out.append('"');
      }
      out.append('}');
    } else if (inBraces) {
      out.append('}');
    }
    out.append(' ');
  }

  /** A name as it is when valid in the legacy character set, else quoted. */
  private static void name(StringBuilder out, String name, boolean metric) {
    if (metric
        ? PrometheusNaming.isValidLegacyMetricName(name)
        : PrometheusNaming.isValidLegacyLabelName(name)) {
      out.append(name);
    } else {
      out.append('"');
      escaped(out, name);
      out.append('"');
    }
  }

  /** A label value with its backslashes, double quotes and newlines escaped. */
  private static void escaped(StringBuilder out, String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '"' -> out.append("\\\"");
        case '\n' -> out.append("\\n");
        default -> out.append(c);
      }
    }
  }

  private static void number(StringBuilder out, double d) {
    if (d == Double.POSITIVE_INFINITY) {
      out.append("+Inf");
    } else if (d == Double.NEGATIVE_INFINITY) {
      out.append("-Inf");
    } else {
      out.append(Double.toString(d));
    }
  }

  /** The sample's timestamp, if it has one, and the end of the line. */
  private static void end(StringBuilder out, DataPointSnapshot data) {
    if (data.hasScrapeTimestamp()) {
      out.append(' ').append(data.getScrapeTimestampMillis());
    }
    out.append('\n');
  }
}
