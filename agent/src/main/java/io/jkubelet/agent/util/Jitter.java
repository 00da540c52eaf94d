package io.jkubelet.agent.util;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/** Jittered durations, as apimachinery's {@code wait.Jitter}: {@code d + d * factor * rand}. */
public final class Jitter {
  private Jitter() {}

  public static Duration jitter(Duration d, double maxFactor, DoubleSupplier random) {
    double factor = maxFactor <= 0 ? 1.0 : maxFactor;
    long extra = (long) (d.toNanos() * factor * random.getAsDouble());
    return d.plusNanos(extra);
  }
}
