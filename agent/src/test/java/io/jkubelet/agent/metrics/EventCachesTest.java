package io.jkubelet.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.events.BroadcastRecorder;
import io.jkubelet.agent.events.EventBroadcaster;
import io.jkubelet.agent.events.EventStore;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.util.FakeClock;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The event pipeline's queues and store as /metrics shows them. */
class EventCachesTest {
  @Test
  void eachWatchersQueueTheStoreAndItsCorrelatorAreShownWithTheirDrops() {
    FakeClock clock = new FakeClock();
    EventBroadcaster broadcaster = new EventBroadcaster(2);
    EventStore store = EventStore.create(clock);
    broadcaster.addWatcher("log", e -> {});
    broadcaster.addWatcher("store", store);
    KubeletMetrics metrics = new KubeletMetrics("node1");
    EventCaches.register(metrics.caches(), broadcaster, store);

    // Not started: nothing is handed on, so the third event finds each queue of two full.
    var recorder = new BroadcastRecorder(clock, "node1", broadcaster);
    for (int i = 0; i < 3; i++) {
      recorder.event(Refs.node("node1"), EventType.Normal, "R" + i, "m");
    }

    String text =
        new String(metrics.scrape(KubeletMetrics.Endpoint.METRICS), StandardCharsets.UTF_8);
    assertThat(text)
        .contains("jkubelet_cache_entries{cache=\"event_queue_log\"} 2.0")
        .contains("jkubelet_cache_capacity{cache=\"event_queue_log\"} 2.0")
        .contains("jkubelet_cache_evictions_total{cache=\"event_queue_log\"} 1.0")
        .contains("jkubelet_cache_evictions_total{cache=\"event_queue_store\"} 1.0")
        .contains("jkubelet_cache_entries{cache=\"event_store\"} 0.0")
        .contains("jkubelet_cache_capacity{cache=\"event_store\"} 1000.0")
        .contains("jkubelet_cache_capacity{cache=\"store_event_aggregator\"} 4096.0")
        .contains("jkubelet_cache_capacity{cache=\"store_event_spam_filter\"} 4096.0")
        .contains("jkubelet_cache_capacity{cache=\"store_event_logger\"} 4096.0");
  }

  @Test
  void withoutAStoreOnlyTheQueuesAreShown() {
    EventBroadcaster broadcaster = EventBroadcaster.create().addWatcher("log", e -> {});
    KubeletMetrics metrics = new KubeletMetrics("node1");
    EventCaches.register(metrics.caches(), broadcaster, null);

    String text =
        new String(metrics.scrape(KubeletMetrics.Endpoint.METRICS), StandardCharsets.UTF_8);
    assertThat(text)
        .contains("jkubelet_cache_capacity{cache=\"event_queue_log\"} 1000.0")
        .doesNotContain("event_store")
        .doesNotContain("store_event_");
  }
}
