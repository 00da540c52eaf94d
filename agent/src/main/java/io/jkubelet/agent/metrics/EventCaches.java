package io.jkubelet.agent.metrics;

import io.jkubelet.agent.events.EventBroadcaster;
import io.jkubelet.agent.events.EventStore;

/**
 * Registers the event pipeline's bounds with the {@link CacheCollector}: each broadcaster watcher's
 * queue ({@code event_queue_<watcher>}, upstream's {@code maxQueuedEvents}), the local event store
 * and its correlator's LRU caches.
 */
public final class EventCaches {
  private EventCaches() {}

  /** Call once every watcher is added; {@code store} is null where there is none. */
  public static void register(
      CacheCollector caches, EventBroadcaster broadcaster, EventStore store) {
    for (String w : broadcaster.names()) {
      caches.add(
          "event_queue_" + w,
          () -> broadcaster.queued(w),
          broadcaster.queueLength(),
          () ->
              broadcaster.dropped().getOrDefault(w, java.util.Map.of()).values().stream()
                  .mapToLong(Long::longValue)
                  .sum());
    }
    if (store != null) {
      caches.add("event_store", store::size, store.capacity(), store::evicted);
      caches.addCorrelator("store", store::correlatorCaches);
    }
  }
}
