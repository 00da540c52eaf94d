package io.jkubelet.agent.metrics;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The Prometheus text format (0.0.4) of a scrape's families, into one {@link StringBuilder}: the
 * bytes the Prometheus Java client's text writer writes for the same series (timestamps in
 * milliseconds, no {@code _created} lines), which {@code ExpositionTest} checks. Families in the
 * order of their names, a name given by two collectors written once; series in the order of their
 * labels; a family without series left out. Names are jkubelet's own, all in the legacy character
 * set, so none is quoted.
 *
 * <p>Stateless; thread-safe.
 */
final class Exposition {
  /** The format's content type. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private Exposition() {}

  /**
   * The families in the text format, UTF-8.
   *
   * @throws IllegalArgumentException when a series is given twice, or a name with two types
   */
  static byte[] write(List<Family> families) {
    List<Family> byName = new ArrayList<>(families);
    byName.sort(Comparator.comparing(f -> f.name));
    StringBuilder out = new StringBuilder(32 * 1024);
    for (int i = 0; i < byName.size(); i++) {
      Family f = byName.get(i);
      if (i + 1 < byName.size() && byName.get(i + 1).name.equals(f.name)) {
        Family merged = new Family(f.name, f.type, f.help);
        for (; i < byName.size() && byName.get(i).name.equals(f.name); i++) {
          if (byName.get(i).type != f.type) {
            throw new IllegalArgumentException(f.name + ": given with two types");
          }
          merged.addAll(byName.get(i));
        }
        i--;
        f = merged;
      }
      if (!f.isEmpty()) {
        family(out, f);
      }
    }
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void family(StringBuilder out, Family f) {
    if (f.help != null && !f.help.isEmpty()) {
      out.append("# HELP ").append(f.name).append(' ');
      escaped(out, f.help, false);
      out.append('\n');
    }
    out.append("# TYPE ").append(f.name).append(' ').append(f.type.text).append('\n');
    for (Family.Sample s : f.samples()) {
      if (s.buckets() == null) {
        series(out, f.name, "", s.labels(), Double.NaN);
        number(out, s.value());
        if (s.timestampMillis() != 0) {
          out.append(' ').append(s.timestampMillis());
        }
        out.append('\n');
      } else {
        histogram(out, f.name, s.labels(), s.buckets());
      }
    }
  }

  private static void histogram(StringBuilder out, String name, String[] labels, Family.Buckets b) {
    for (int i = 0; i < b.cumulative().length; i++) {
      double le = i < b.bounds().length ? b.bounds()[i] : Double.POSITIVE_INFINITY;
      series(out, name, "_bucket", labels, le);
      out.append(b.cumulative()[i]).append('\n');
    }
    series(out, name, "_count", labels, Double.NaN);
    out.append(b.count()).append('\n');
    series(out, name, "_sum", labels, Double.NaN);
    number(out, b.sum());
    out.append('\n');
  }

  /** A series' name and labels, then a space; a bucket's {@code le} last (NaN: none). */
  private static void series(
      StringBuilder out, String name, String suffix, String[] labels, double le) {
    out.append(name).append(suffix);
    boolean bucket = !Double.isNaN(le);
    if (labels.length > 0 || bucket) {
      out.append('{');
      for (int i = 0; i < labels.length; i += 2) {
        if (i > 0) {
          out.append(',');
        }
        out.append(labels[i]).append("=\"");
        escaped(out, labels[i + 1], true);
        out.append('"');
      }
      if (bucket) {
        out.append(labels.length > 0 ? ",le=\"" : "le=\"");
        number(out, le);
        out.append('"');
      }
      out.append('}');
    }
    out.append(' ');
  }

  /**
   * Help text or a label value with its backslashes and newlines escaped, and a label value's
   * double quotes.
   */
  private static void escaped(StringBuilder out, String s, boolean quotes) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '"' -> out.append(quotes ? "\\\"" : "\"");
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
      out.append(d);
    }
  }
}
