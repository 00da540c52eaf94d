package io.jkubelet.agent.metrics;

import java.util.concurrent.atomic.AtomicLong;

/** A gauge. Thread-safe. */
public final class Gauge extends Labelled<Gauge.Child> {
  /** One series of the gauge. */
  public static final class Child {
    private final AtomicLong bits = new AtomicLong(Double.doubleToRawLongBits(0));

    public void set(double v) {
      bits.set(Double.doubleToRawLongBits(v));
    }

    public void inc() {
      add(1);
    }

    public void dec() {
      add(-1);
    }

    private void add(double d) {
      long old;
      do {
        old = bits.get();
      } while (!bits.compareAndSet(
          old, Double.doubleToRawLongBits(Double.longBitsToDouble(old) + d)));
    }

    public double get() {
      return Double.longBitsToDouble(bits.get());
    }
  }

  private Gauge(String name, String help, String[] labelNames) {
    super(name, help, labelNames, Family.Type.GAUGE, Child::new);
  }

  static Gauge of(String name, String help, String... labelNames) {
    return new Gauge(name, help, labelNames);
  }

  /** Sets a gauge without labels. */
  public void set(double v) {
    unlabelled().set(v);
  }

  public void inc() {
    unlabelled().inc();
  }

  public void dec() {
    unlabelled().dec();
  }

  @Override
  void add(Family f, String[] labels, Child child) {
    f.addSample(labels, child.get());
  }
}
