package io.jkubelet.agent.cli;

import io.jkubelet.agent.gc.ImageGcManager;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.Durations;
import io.jkubelet.config.KubeletConfigurationBuilder;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The garbage collectors' flags (a picocli mixin of {@code run}), upstream's: the image GC ones
 * overlay their configuration fields, so a flag given wins over the file; the container GC ones
 * exist only as flags, as upstream's (which deprecates them in favour of eviction, and keeps them).
 */
final class GcFlags {
  @Option(
      names = "--image-gc-high-threshold",
      paramLabel = "PERCENT",
      description =
          "The image file system's usage at or above which unused images are deleted, 0-100; 100"
              + " disables image GC (imageGCHighThresholdPercent, default 85).")
  Integer imageGcHighThreshold;

  @Option(
      names = "--image-gc-low-threshold",
      paramLabel = "PERCENT",
      description =
          "The usage image GC frees down to, below the high threshold"
              + " (imageGCLowThresholdPercent, default 80).")
  Integer imageGcLowThreshold;

  @Option(
      names = "--minimum-image-ttl-duration",
      paramLabel = "DURATION",
      converter = RunCommand.DurationConverter.class,
      description =
          "How long an unused image must have been known before it is deleted"
              + " (imageMinimumGCAge, default 2m).")
  Duration minimumImageTtl;

  @Option(
      names = "--image-gc-period",
      hidden = true,
      paramLabel = "DURATION",
      converter = RunCommand.DurationConverter.class,
      description =
          "How often image GC runs (jkubelet's own; upstream's period is a fixed 5m). Hidden: for"
              + " tests that watch several runs.")
  Duration imageGcPeriod;

  @Option(
      names = "--minimum-container-ttl-duration",
      paramLabel = "DURATION",
      converter = RunCommand.DurationConverter.class,
      description = "How old a dead container must be before it is removed (default 0).")
  Duration minimumContainerTtl;

  @Option(
      names = "--maximum-dead-containers-per-container",
      paramLabel = "N",
      description = "Dead containers kept per container of a pod; negative: no limit (default 1).")
  Integer maxDeadPerContainer;

  @Option(
      names = "--maximum-dead-containers",
      paramLabel = "N",
      description = "Dead containers kept on the node; negative: no limit (default -1).")
  Integer maxDead;

  /** The image GC's period: upstream's 5 minutes unless {@code --image-gc-period} is given. */
  Duration imageGcPeriod() {
    return imageGcPeriod == null ? ImageGcManager.PERIOD : imageGcPeriod;
  }

  /** Sets the configuration fields of the flags that were given. */
  void overlay(KubeletConfigurationBuilder b, Map<String, String> flagOf) {
    if (imageGcPeriod != null && !imageGcPeriod.isPositive()) {
      throw new ConfigException(
          "--image-gc-period", "must be positive, got " + Durations.format(imageGcPeriod));
    }
    RunCommand.overlay(
        flagOf,
        imageGcHighThreshold,
        "imageGCHighThresholdPercent",
        "--image-gc-high-threshold",
        v -> b.gc(b.gc().withImageGCHighThresholdPercent(v)));
    RunCommand.overlay(
        flagOf,
        imageGcLowThreshold,
        "imageGCLowThresholdPercent",
        "--image-gc-low-threshold",
        v -> b.gc(b.gc().withImageGCLowThresholdPercent(v)));
    RunCommand.overlay(
        flagOf,
        minimumImageTtl,
        "imageMinimumGCAge",
        "--minimum-image-ttl-duration",
        v -> b.gc(b.gc().withImageMinimumGCAge(v)));
    RunCommand.overlay(
        flagOf,
        minimumContainerTtl,
        "minimumContainerTtl",
        "--minimum-container-ttl-duration",
        v -> b.gc(b.gc().withMinimumContainerTtl(v)));
    RunCommand.overlay(
        flagOf,
        maxDeadPerContainer,
        "maxPerPodContainer",
        "--maximum-dead-containers-per-container",
        v -> b.gc(b.gc().withMaxPerPodContainer(v)));
    RunCommand.overlay(
        flagOf,
        maxDead,
        "maxContainers",
        "--maximum-dead-containers",
        v -> b.gc(b.gc().withMaxContainers(v)));
  }
}
