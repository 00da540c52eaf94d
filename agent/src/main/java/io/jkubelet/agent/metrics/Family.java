package io.jkubelet.agent.metrics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One metric family of a scrape: its name as exposed, its type and help, and its samples, each with
 * its labels as name-value pairs. A collector makes its families at every scrape; {@link
 * Exposition} writes them. Not thread-safe: one per scrape.
 */
public final class Family {
  /** The text format's types. */
  enum Type {
    COUNTER("counter"),
    GAUGE("gauge"),
    UNTYPED("untyped"),
    HISTOGRAM("histogram");

    final String text;

    Type(String text) {
      this.text = text;
    }
  }

  /**
   * One series: its labels (names and values alternating, sorted by name), its value and sample
   * timestamp (0 for none); and for a histogram its buckets.
   */
  record Sample(String[] labels, double value, long timestampMillis, Buckets buckets) {}

  /**
   * A classic histogram's series: the upper bounds without {@code +Inf}, the cumulative counts of
   * every bucket, {@code +Inf}'s last (the count), and the sum.
   */
  record Buckets(double[] bounds, long[] cumulative, double sum) {
    long count() {
      return cumulative[cumulative.length - 1];
    }
  }

  final String name;
  final Type type;
  final String help;
  private final List<Sample> samples = new ArrayList<>();

  /** Whether {@link #samples} is sorted and holds no series twice, as last read. */
  private boolean checked = true;

  /**
   * A family; its name in the text format's legacy character set ({@code
   * [a-zA-Z_:][a-zA-Z0-9_:]*}), as jkubelet's names all are, so that the text never quotes one.
   */
  Family(String name, Type type, String help) {
    this.name = requireMetricName(name);
    this.type = type;
    this.help = help;
  }

  /** A counter; its name ends with {@code _total}, as exposed. */
  static Family counter(String nameWithTotal, String help) {
    if (!nameWithTotal.endsWith("_total")) {
      throw new IllegalArgumentException("a counter's name ends with _total: " + nameWithTotal);
    }
    return new Family(nameWithTotal, Type.COUNTER, help);
  }

  static Family gauge(String name, String help) {
    return new Family(name, Type.GAUGE, help);
  }

  /** A family without a type, for a name that keeps no type's suffix. */
  static Family untyped(String name, String help) {
    return new Family(name, Type.UNTYPED, help);
  }

  /** Adds a sample; {@code labels} alternate names and values. */
  Family add(double value, String... labels) {
    return add(value, 0, labels);
  }

  /** Adds a sample with a sample timestamp (0 for none). */
  Family add(double value, long timestampMillis, String... labels) {
    return add(new Sample(sortedPairs(labels), value, timestampMillis, null));
  }

  /** Adds a sample; {@code labels} are pairs sorted by name. */
  Family addSample(String[] labels, double value) {
    return add(new Sample(labels, value, 0, null));
  }

  /** Adds a histogram's series; {@code labels} are pairs sorted by name. */
  Family addHistogram(String[] labels, Buckets buckets) {
    return add(new Sample(labels, 0, 0, buckets));
  }

  private Family add(Sample s) {
    checked = samples.isEmpty();
    samples.add(s);
    return this;
  }

  /** Adds every sample of {@code other}, a family of the same name from another collector. */
  void addAll(Family other) {
    other.samples.forEach(this::add);
  }

  /**
   * The samples in the order of their labels' values.
   *
   * @throws IllegalArgumentException when two samples have the same labels (one series twice)
   */
  List<Sample> samples() {
    if (checked) {
      return samples;
    }
    // A list already in order (most collectors add in order) costs the sort one comparison a
    // sample.
    samples.sort((a, b) -> compare(a.labels(), b.labels()));
    for (int i = 1; i < samples.size(); i++) {
      if (compare(samples.get(i - 1).labels(), samples.get(i).labels()) == 0) {
        throw new IllegalArgumentException(
            name + ": one series given twice: " + Arrays.toString(samples.get(i).labels()));
      }
    }
    checked = true;
    return samples;
  }

  boolean isEmpty() {
    return samples.isEmpty();
  }

  /** {@code name}, when it is a metric name in the text format's legacy set. */
  static String requireMetricName(String name) {
    if (!validName(name, true)) {
      throw new IllegalArgumentException("not a metric name: " + name);
    }
    return name;
  }

  /**
   * Whether {@code name} is in the text format's legacy set: {@code [a-zA-Z_:][a-zA-Z0-9_:]*} for a
   * metric, the same without {@code :} for a label.
   */
  static boolean validName(String name, boolean metric) {
    if (name == null || name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok =
          c >= 'a' && c <= 'z'
              || c >= 'A' && c <= 'Z'
              || c == '_'
              || metric && c == ':'
              || i > 0 && c >= '0' && c <= '9';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** Label pairs by name, then by value, as the Prometheus client orders a family's series. */
  private static int compare(String[] a, String[] b) {
    for (int i = 0; i < Math.min(a.length, b.length); i++) {
      int c = a[i].compareTo(b[i]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.length, b.length);
  }

  /** A copy of name-value pairs sorted by name (insertion sort: a series has a few labels). */
  static String[] sortedPairs(String... labels) {
    if (labels.length % 2 != 0) {
      throw new IllegalArgumentException("labels are name-value pairs: " + Arrays.toString(labels));
    }
    for (String l : labels) {
      if (l == null) {
        throw new IllegalArgumentException(
            "a null label name or value: " + Arrays.toString(labels));
      }
    }
    String[] out = labels.clone();
    for (int i = 2; i < out.length; i += 2) {
      String name = out[i];
      String value = out[i + 1];
      int j = i - 2;
      while (j >= 0 && out[j].compareTo(name) > 0) {
        out[j + 2] = out[j];
        out[j + 3] = out[j + 1];
        j -= 2;
      }
      out[j + 2] = name;
      out[j + 3] = value;
    }
    for (int i = 2; i < out.length; i += 2) {
      if (out[i].equals(out[i - 2])) {
        throw new IllegalArgumentException("a label name given twice: " + Arrays.toString(labels));
      }
    }
    return out;
  }
}
