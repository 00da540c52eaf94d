package io.jkubelet.agent.cli;

import io.jkubelet.agent.KubeletOptions;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.gc.ImageGarbageCollector;
import io.jkubelet.agent.gc.ImageGcManager;
import io.jkubelet.agent.gc.ImageGcPolicy;
import io.jkubelet.agent.metrics.ImageGcCollector;
import io.jkubelet.agent.metrics.KubeletMetrics;
import io.jkubelet.agent.runtime.ImageService;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.GcSettings;
import java.util.Optional;

/**
 * Builds image garbage collection for {@code run}: its policy from the configuration ({@code
 * imageGCHighThresholdPercent}, {@code imageGCLowThresholdPercent}, {@code imageMinimumGCAge}, or
 * their flags), the engine's images (every container of the engine counts as a user, not only the
 * node's), the sandbox image it never deletes, and its counts on {@code /metrics}. Builds only: the
 * command starts it once the agent runs and stops it first. Container GC's policy reaches the agent
 * through the configuration ({@code KubeletConfiguration.gc}).
 */
final class GcWiring {
  private GcWiring() {}

  /**
   * The image GC, run every {@code --image-gc-period}; empty at a high threshold of 100, which
   * disables it as upstream.
   */
  static Optional<ImageGcManager> imageGc(
      KubeletOptions options,
      ImageService images,
      EventRecorder recorder,
      Time time,
      KubeletMetrics metrics,
      GcFlags flags) {
    GcSettings s = options.config().gc();
    Optional<ImageGcManager> gc =
        ImageGcManager.create(
            new ImageGcManager.Options(
                new ImageGcPolicy(
                    s.imageGCHighThresholdPercent(),
                    s.imageGCLowThresholdPercent(),
                    s.imageMinimumGCAge()),
                options.podInfraImage(),
                Refs.node(options.nodeName()),
                flags.imageGcPeriod()),
            images,
            recorder,
            time);
    gc.ifPresent(g -> metrics.register(new ImageGcCollector(g::stats)));
    return gc;
  }

  /**
   * What the eviction manager frees images with: the image GC, or one that frees nothing when image
   * GC is off.
   */
  static ImageGarbageCollector collector(Optional<ImageGcManager> imageGc) {
    return imageGc.<ImageGarbageCollector>map(g -> g).orElse(ImageGarbageCollector.NONE);
  }
}
