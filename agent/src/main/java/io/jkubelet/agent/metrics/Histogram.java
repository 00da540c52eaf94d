package io.jkubelet.agent.metrics;

/**
 * A classic histogram: fixed upper bounds (an observation counts in the first bucket whose bound is
 * at least its value) and {@code +Inf}, a count and a sum. Thread-safe.
 */
public final class Histogram extends Labelled<Histogram.Child> {
  /** One series of the histogram. */
  public static final class Child {
    private final double[] bounds;
    private final long[] counts;
    private double sum;

    Child(double[] bounds) {
      this.bounds = bounds;
      this.counts = new long[bounds.length + 1];
    }

    /** Counts one observation; NaN is not counted. */
    public void observe(double v) {
      if (Double.isNaN(v)) {
        return;
      }
      int i = 0;
      while (i < bounds.length && v > bounds[i]) {
        i++;
      }
      synchronized (this) {
        counts[i]++;
        sum += v;
      }
    }

    synchronized Family.Buckets buckets() {
      long[] cumulative = new long[counts.length];
      long n = 0;
      for (int i = 0; i < counts.length; i++) {
        n += counts[i];
        cumulative[i] = n;
      }
      return new Family.Buckets(bounds, cumulative, sum);
    }
  }

  private Histogram(String name, String help, double[] bounds, String[] labelNames) {
    super(name, help, labelNames, Family.Type.HISTOGRAM, () -> new Child(bounds));
  }

  /** A histogram with these upper bounds (ascending, without {@code +Inf}). */
  static Histogram of(String name, String help, double[] bounds, String... labelNames) {
    double[] b = bounds.clone();
    for (int i = 1; i < b.length; i++) {
      if (!(b[i] > b[i - 1])) {
        throw new IllegalArgumentException(name + ": bounds must ascend");
      }
    }
    return new Histogram(name, help, b, labelNames);
  }

  /**
   * {@code count} bounds from {@code start}, each {@code factor} times the one before (computed as
   * the Prometheus Java client computes them, so the {@code le} labels are the same).
   */
  static double[] exponentialBounds(double start, double factor, int count) {
    double[] b = new double[count];
    for (int i = 0; i < count; i++) {
      b[i] = start * Math.pow(factor, i);
    }
    return b;
  }

  /** Counts an observation of a histogram without labels. */
  public void observe(double v) {
    unlabelled().observe(v);
  }

  @Override
  void add(Family f, String[] labels, Child child) {
    f.addHistogram(labels, child.buckets());
  }
}
