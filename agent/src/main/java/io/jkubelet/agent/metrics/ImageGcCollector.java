package io.jkubelet.agent.metrics;

import io.jkubelet.agent.gc.ImageGcManager;
import java.util.List;
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
public record ImageGcCollector(Supplier<ImageGcManager.Stats> stats) implements Collector {

  @Override
  public List<Family> collect() {
    ImageGcManager.Stats s = stats.get();
    return List.of(
        Family.counter("jkubelet_image_gc_deleted_images_total", "Images deleted by image GC.")
            .add(s.deletedImages()),
        Family.counter(
                "jkubelet_image_gc_freed_bytes_total",
                "Bytes the images deleted by image GC took on disk.")
            .add(s.freedBytes()),
        Family.counter(
                "jkubelet_image_gc_failed_deletions_total",
                "Image deletions by image GC that the engine refused or that failed.")
            .add(s.failedDeletions()),
        Family.counter(
                "jkubelet_image_gc_runs_over_threshold_total",
                "Image GC runs that found the image file system at or above the high threshold.")
            .add(s.runsOverThreshold()));
  }
}
