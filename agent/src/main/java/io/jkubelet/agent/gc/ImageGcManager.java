package io.jkubelet.agent.gc;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.runtime.ImageService;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.time.Duration;
import java.util.Optional;

/**
 * Image garbage collection, as upstream's {@code ImageGCManager}: started, it deletes unused images
 * every {@link Options#period()} when the image file system fills; the eviction manager reclaims
 * through it too ({@link ImageGarbageCollector}). Made by {@link #create}; thread-safe.
 */
public interface ImageGcManager extends ImageGarbageCollector, Lifecycle {
  /** Upstream's {@code ImageGCPeriod}. */
  Duration PERIOD = Duration.ofMinutes(5);

  /** The counts {@code /metrics} shows. */
  Stats stats();

  /**
   * The counts {@code /metrics} shows (upstream v1.20 has no image GC metric).
   *
   * @param deletedImages images deleted
   * @param freedBytes the bytes those images took
   * @param failedDeletions deletions the engine refused or failed
   * @param runsOverThreshold periodic runs that found the usage at or above the high threshold
   */
  record Stats(long deletedImages, long freedBytes, long failedDeletions, long runsOverThreshold) {}

  /**
   * What image GC is told.
   *
   * @param policy the thresholds and the minimum age
   * @param sandboxImage the sandbox image, never deleted
   * @param node the Node its events are about
   * @param period how often it runs: {@link #PERIOD} but in tests
   */
  record Options(
      ImageGcPolicy policy, @Nullable String sandboxImage, ObjectReference node, Duration period) {
    public Options {
      Records.requireNonNull(Options.class, policy, node, period);
      if (!period.isPositive()) {
        throw new IllegalArgumentException("the image GC period must be positive, got " + period);
      }
    }
  }

  /**
   * The image GC over the engine's {@code images}; empty at a high threshold of 100, which disables
   * it as upstream. Builds only: {@link #start()} starts it.
   */
  static Optional<ImageGcManager> create(
      Options options, ImageService images, EventRecorder recorder, Time time) {
    return RealImageGcManager.ifEnabled(options, images, recorder, time);
  }
}
