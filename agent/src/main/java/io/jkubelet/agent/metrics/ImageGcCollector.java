package io.jkubelet.agent.metrics;

import io.jkubelet.agent.gc.ImageGcManager;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.function.Supplier;

/**
 * Image garbage collection's counts, read from the manager at each scrape. Upstream v1.20 has no
 * image GC metric, so the names are jkubelet's:
 *
 * <ul>
 *   <li>{@code jkubelet_image_gc_deleted_images_total}: images deleted;
 *   <li>{@code jkubelet_image_gc_freed_bytes_total}: the bytes those images took;
 *   <li>{@code jkubelet_image_gc_failed_deletions_total}: deletions that failed;
 *   <li>{@code jkubelet_image_gc_runs_over_threshold_total}: periodic runs that found the image
 *       file system at or above the high threshold.
 * </ul>
 */
public record ImageGcCollector(Supplier<ImageGcManager.Stats> stats) implements MultiCollector {

  @Override
  public MetricSnapshots collect() {
    ImageGcManager.Stats s = stats.get();
    return MetricSnapshots.of(
        Family.counter("jkubelet_image_gc_deleted_images_total", "Images deleted by image GC.")
            .add(s.deletedImages())
            .build(),
        Family.counter(
                "jkubelet_image_gc_freed_bytes_total",
                "Bytes the images deleted by image GC took on disk.")
            .add(s.freedBytes())
            .build(),
        Family.counter(
                "jkubelet_image_gc_failed_deletions_total",
                "Image deletions by image GC that the engine refused or that failed.")
            .add(s.failedDeletions())
            .build(),
        Family.counter(
                "jkubelet_image_gc_runs_over_threshold_total",
                "Image GC runs that found the image file system at or above the high threshold.")
            .add(s.runsOverThreshold())
            .build());
  }
}
