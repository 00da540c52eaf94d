package io.jkubelet.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The garbage collectors' policy: upstream's image GC fields of KubeletConfiguration and its
 * container GC flags (which upstream keeps out of the file: {@code
 * --minimum-container-ttl-duration}, {@code --maximum-dead-containers-per-container}, {@code
 * --maximum-dead-containers}). Ranges are checked by {@link ConfigValidator}; this record only
 * rejects nulls.
 *
 * @param imageGCHighThresholdPercent the image file system's usage at or above which unused images
 *     are deleted; default 85; 100 disables image GC
 * @param imageGCLowThresholdPercent the usage image GC frees down to; default 80
 * @param imageMinimumGCAge how long an image must have been known before it may be deleted; default
 *     2m
 * @param minimumContainerTtl how old a dead container must be before it is removed; default 0
 * @param maxPerPodContainer the dead containers kept per (pod, container name); default 1; negative
 *     for no limit
 * @param maxContainers the dead containers kept on the node; default -1 (no limit)
 */
public record GcSettings(
    int imageGCHighThresholdPercent,
    int imageGCLowThresholdPercent,
    Duration imageMinimumGCAge,
    Duration minimumContainerTtl,
    int maxPerPodContainer,
    int maxContainers) {

  public static final GcSettings DEFAULTS =
      new GcSettings(85, 80, Duration.ofMinutes(2), Duration.ZERO, 1, -1);

  public GcSettings {
    Objects.requireNonNull(imageMinimumGCAge, "imageMinimumGCAge");
    Objects.requireNonNull(minimumContainerTtl, "minimumContainerTtl");
  }

  public GcSettings withImageGCHighThresholdPercent(int v) {
    return new GcSettings(
        v,
        imageGCLowThresholdPercent,
        imageMinimumGCAge,
        minimumContainerTtl,
        maxPerPodContainer,
        maxContainers);
  }

  public GcSettings withImageGCLowThresholdPercent(int v) {
    return new GcSettings(
        imageGCHighThresholdPercent,
        v,
        imageMinimumGCAge,
        minimumContainerTtl,
        maxPerPodContainer,
        maxContainers);
  }

  public GcSettings withImageMinimumGCAge(Duration v) {
    return new GcSettings(
        imageGCHighThresholdPercent,
        imageGCLowThresholdPercent,
        v,
        minimumContainerTtl,
        maxPerPodContainer,
        maxContainers);
  }

  public GcSettings withMinimumContainerTtl(Duration v) {
    return new GcSettings(
        imageGCHighThresholdPercent,
        imageGCLowThresholdPercent,
        imageMinimumGCAge,
        v,
        maxPerPodContainer,
        maxContainers);
  }

  public GcSettings withMaxPerPodContainer(int v) {
    return new GcSettings(
        imageGCHighThresholdPercent,
        imageGCLowThresholdPercent,
        imageMinimumGCAge,
        minimumContainerTtl,
        v,
        maxContainers);
  }

  public GcSettings withMaxContainers(int v) {
    return new GcSettings(
        imageGCHighThresholdPercent,
        imageGCLowThresholdPercent,
        imageMinimumGCAge,
        minimumContainerTtl,
        maxPerPodContainer,
        v);
  }
}
