package io.jkubelet.config;

import java.time.Duration;

/**
 * The garbage collectors' policy: upstream's image GC settings of KubeletConfiguration and its
 * container GC flags (which upstream keeps out of the file, deprecates in favour of eviction, and
 * keeps). Checked by {@link ConfigValidator}.
 */
public record GcSettings(
    @Field(
            flag = "--image-gc-high-threshold",
            value = "85",
            check = Checks.Percent.class,
            doc =
                "The image file system's usage at or above which unused images are deleted, 0-100;"
                    + " 100 disables image GC")
        int imageGCHighThresholdPercent,
    @Field(
            flag = "--image-gc-low-threshold",
            value = "80",
            check = Checks.Percent.class,
            doc = "The usage image GC frees down to, below the high threshold")
        int imageGCLowThresholdPercent,
    @Field(
            flag = "--minimum-image-ttl-duration",
            value = "2m",
            check = Checks.NotNegative.class,
            doc = "How long an unused image must have been known before it is deleted")
        Duration imageMinimumGCAge,
    @Field(
            file = Field.FLAG_ONLY,
            flag = "--minimum-container-ttl-duration",
            check = Checks.GcAge.class,
            doc = "How old a dead container must be before it is removed")
        Duration minimumContainerTtl,
    @Field(
            file = Field.FLAG_ONLY,
            flag = "--maximum-dead-containers-per-container",
            value = "1",
            doc = "Dead containers kept per container of a pod; negative: no limit")
        int maxPerPodContainer,
    @Field(
            file = Field.FLAG_ONLY,
            flag = "--maximum-dead-containers",
            value = "-1",
            doc = "Dead containers kept on the node; negative: no limit")
        int maxContainers,
    @Field(
            file = Field.FLAG_ONLY,
            value = "5m",
            check = Checks.PositivePeriod.class,
            hidden = true,
            doc =
                "How often image GC runs (jkubelet's own; upstream's period is a fixed 5m)."
                    + " Hidden: for tests that watch several runs")
        Duration imageGcPeriod)
    implements Validated {

  public static final GcSettings DEFAULTS = Settings.defaults(GcSettings.class, false);

  /** Upstream's rule: the low threshold below the high one. */
  @Override
  public void validate() {
    if (imageGCLowThresholdPercent >= imageGCHighThresholdPercent) {
      throw new ConfigException(
          "imageGCLowThresholdPercent",
          imageGCLowThresholdPercent
              + " must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) "
              + imageGCHighThresholdPercent);
    }
  }
}
