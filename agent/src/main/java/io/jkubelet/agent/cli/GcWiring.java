package io.jkubelet.agent.cli;

import io.jkubelet.agent.EvictionWiring;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds image garbage collection for {@code run}: its policy from the configuration ({@code
 * imageGCHighThresholdPercent}, {@code imageGCLowThresholdPercent}, {@code imageMinimumGCAge}, or
 * their flags), the engine's images (every container of the engine counts as a user, not only the
 * node's), the sandbox image it never deletes, and its counts on {@code /metrics}. Builds only: the
 * command starts it once the agent runs and stops it first. Container GC's policy reaches the agent
 * through the configuration ({@code KubeletConfiguration.gc}).
 */
final class GcWiring {
  private static final Logger log = LoggerFactory.getLogger(GcWiring.class);

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
      KubeletMetrics metrics) {
    GcSettings s = options.config().gc();
    java.time.Duration period = s.imageGcPeriod();
    ImageGcPolicy policy =
        new ImageGcPolicy(
            s.imageGCHighThresholdPercent(), s.imageGCLowThresholdPercent(), s.imageMinimumGCAge());
    if (!policy.enabled()) {
      log.info("ImageGC: imageGCHighThresholdPercent is 100; image garbage collection is off");
      return Optional.empty();
    }
    ImageGcManager gc =
        new ImageGcManager(
            images,
            policy,
            options.podInfraImage(),
            recorder,
            Refs.node(options.nodeName()),
            time.clock(),
            time.schedulers(),
            period);
    metrics.register(new ImageGcCollector(gc::stats));
    return Optional.of(gc);
  }

  /**
   * What the eviction manager frees images with: the image GC, or one that frees nothing when image
   * GC is off.
   */
  static ImageGarbageCollector collector(Optional<ImageGcManager> imageGc) {
    return imageGc.<ImageGarbageCollector>map(g -> g).orElse(EvictionWiring.NO_IMAGE_GC);
  }
}
