package io.jkubelet.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The cache bounds as a scraper sees them on /metrics. */
class CacheCollectorTest {
  private final KubeletMetrics metrics = new KubeletMetrics("node-1");

  private String scrape() {
    return new String(metrics.scrape(KubeletMetrics.Endpoint.METRICS), StandardCharsets.UTF_8);
  }

  @Test
  void entriesCapacityAndEvictionsAreReadAtEachScrape() throws Exception {
    AtomicInteger pods = new AtomicInteger(3);
    AtomicInteger queued = new AtomicInteger(0);
    AtomicLong dropped = new AtomicLong(0);
    metrics
        .caches()
        .add("pleg_pod_cache", pods::get, 110)
        .add("loop_pleg_channel", queued::get, 1000, dropped::get);

    String first = scrape();
    assertThat(first)
        .contains("# TYPE jkubelet_cache_entries gauge")
        .contains("# HELP jkubelet_cache_capacity The bound of a cache or queue")
        .contains("jkubelet_cache_entries{cache=\"pleg_pod_cache\"} 3.0")
        .contains("jkubelet_cache_capacity{cache=\"pleg_pod_cache\"} 110.0")
        .contains("jkubelet_cache_entries{cache=\"loop_pleg_channel\"} 0.0")
        .contains("jkubelet_cache_capacity{cache=\"loop_pleg_channel\"} 1000.0")
        .contains("# TYPE jkubelet_cache_evictions_total counter")
        .contains("jkubelet_cache_evictions_total{cache=\"loop_pleg_channel\"} 0.0")
        .doesNotContain("jkubelet_cache_evictions_total{cache=\"pleg_pod_cache\"}");

    pods.set(7);
    queued.set(1000);
    dropped.set(4);
    String second = scrape();
    assertThat(second)
        .contains("jkubelet_cache_entries{cache=\"pleg_pod_cache\"} 7.0")
        .contains("jkubelet_cache_entries{cache=\"loop_pleg_channel\"} 1000.0")
        .contains("jkubelet_cache_evictions_total{cache=\"loop_pleg_channel\"} 4.0");
    Promtool.check(second.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void withoutCachesTheScrapeStillPassesPromtool() throws Exception {
    Promtool.check(metrics.scrape(KubeletMetrics.Endpoint.METRICS));
  }

  @Test
  void namesAreLowerSnakeAndUniqueAndCapacitiesPositive() {
    CacheCollector c = new CacheCollector().add("work_queue", () -> 0, 110);
    assertThatThrownBy(() -> c.add("work_queue", () -> 0, 110))
        .hasMessageContaining("already registered");
    assertThatThrownBy(() -> c.add("WorkQueue", () -> 0, 110)).hasMessageContaining("lower_snake");
    assertThatThrownBy(() -> c.add("work-queue", () -> 0, 110)).hasMessageContaining("lower_snake");
    assertThatThrownBy(() -> c.add("empty", () -> 0, 0)).hasMessageContaining("capacity");
  }
}
