package io.jkubelet.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.gc.ContainerGc;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Container GC's counts on {@code /metrics}, read at each scrape. */
class ContainerGcCollectorTest {
  @Test
  void theCountsAreOnMetricsAsTheyAreAtTheScrape() {
    KubeletMetrics metrics = new KubeletMetrics("n1");
    AtomicReference<ContainerGc.Stats> stats =
        new AtomicReference<>(new ContainerGc.Stats(0, 0, 0));
    metrics.register(new ContainerGcCollector(stats::get));
    stats.set(new ContainerGc.Stats(4, 2, 1));

    String text =
        new String(metrics.scrape(KubeletMetrics.Endpoint.METRICS), StandardCharsets.UTF_8);

    assertThat(text)
        .containsPattern("# TYPE jkubelet_container_gc_removed_containers(_total)? counter")
        .contains("jkubelet_container_gc_removed_containers_total 4.0")
        .contains("jkubelet_container_gc_removed_sandboxes_total 2.0")
        .contains("jkubelet_container_gc_failed_removals_total 1.0");
  }
}
