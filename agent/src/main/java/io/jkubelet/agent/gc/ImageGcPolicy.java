package io.jkubelet.agent.gc;

import io.jkubelet.config.GcSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * Upstream's {@code ImageGCPolicy}, checked as {@code NewImageGCManager} checks it.
 *
 * @param highThresholdPercent the image file system's usage at or above which images are deleted;
 *     100 disables image GC (the manager is then not started)
 * @param lowThresholdPercent the usage deleting frees down to
 * @param minAge how long an image must have been known before it may be deleted
 */
public record ImageGcPolicy(int highThresholdPercent, int lowThresholdPercent, Duration minAge) {
  public ImageGcPolicy {
    Objects.requireNonNull(minAge, "minAge");
    if (highThresholdPercent < 0 || highThresholdPercent > 100) {
      throw new IllegalArgumentException(
          "invalid HighThresholdPercent " + highThresholdPercent + ", must be in range [0-100]");
    }
    if (lowThresholdPercent < 0 || lowThresholdPercent > 100) {
      throw new IllegalArgumentException(
          "invalid LowThresholdPercent " + lowThresholdPercent + ", must be in range [0-100]");
    }
    if (lowThresholdPercent > highThresholdPercent) {
      throw new IllegalArgumentException(
          "LowThresholdPercent "
              + lowThresholdPercent
              + " can not be higher than HighThresholdPercent "
              + highThresholdPercent);
    }
    if (minAge.isNegative()) {
      throw new IllegalArgumentException("invalid minimum image age " + minAge);
    }
  }

  /** The policy {@code settings} declare. */
  public static ImageGcPolicy of(GcSettings settings) {
    return new ImageGcPolicy(
        settings.imageGCHighThresholdPercent(),
        settings.imageGCLowThresholdPercent(),
        settings.imageMinimumGCAge());
  }

  /** Whether image GC runs at all: upstream stubs it out at a high threshold of 100. */
  public boolean enabled() {
    return highThresholdPercent < 100;
  }
}
