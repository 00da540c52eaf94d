package io.jkubelet.agent.metrics;

import java.util.concurrent.atomic.DoubleAdder;

/**
 * A counter, exposed with {@code _total} at the end of its name (added when the name has none).
 * Thread-safe.
 */
public final class Counter extends Labelled<Counter.Child> {
  /** One series of the counter. */
  public static final class Child {
    private final DoubleAdder value = new DoubleAdder();

    public void inc() {
      value.add(1);
    }

    /** Adds {@code n}; a counter never goes down. */
    public void inc(double n) {
      if (n < 0) {
        throw new IllegalArgumentException("a counter cannot go down: " + n);
      }
      value.add(n);
    }

    public double get() {
      return value.sum();
    }
  }

  private Counter(String name, String help, String[] labelNames) {
    super(
        name.endsWith("_total") ? name : name + "_total",
        help,
        labelNames,
        Family.Type.COUNTER,
        Child::new);
  }

  static Counter of(String name, String help, String... labelNames) {
    return new Counter(name, help, labelNames);
  }

  /** Adds {@code n} to a counter without labels. */
  public void inc(double n) {
    unlabelled().inc(n);
  }

  @Override
  void add(Family f, String[] labels, Child child) {
    f.addSample(labels, child.get());
  }
}
