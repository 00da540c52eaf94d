package io.jkubelet.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.gc.ImageGcManager;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Image GC's counts on {@code /metrics}, read at each scrape. */
class ImageGcCollectorTest {
  @Test
  void theCountsAreOnMetricsAsTheyAreAtTheScrape() {
    KubeletMetrics metrics = new KubeletMetrics("n1");
    AtomicReference<ImageGcManager.Stats> stats =
        new AtomicReference<>(new ImageGcManager.Stats(0, 0, 0, 0));
    metrics.register(new ImageGcCollector(stats::get));
    stats.set(new ImageGcManager.Stats(3, 30_000, 1, 2));

    String text =
        new String(metrics.scrape(KubeletMetrics.Endpoint.METRICS), StandardCharsets.UTF_8);

    assertThat(text)
        .contains("jkubelet_image_gc_deleted_images_total 3.0")
        .contains("jkubelet_image_gc_freed_bytes_total 30000.0")
        .contains("jkubelet_image_gc_failed_deletions_total 1.0")
        .contains("jkubelet_image_gc_runs_over_threshold_total 2.0");
  }
}
