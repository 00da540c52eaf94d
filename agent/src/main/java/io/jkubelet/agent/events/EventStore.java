package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.jkubelet.agent.util.ApiSerialization;
import io.jkubelet.agent.util.Lru;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broadcaster watcher that keeps the newest events in memory, above all for standalone mode,
 * where there is no API server to hold them: the read-only port serves them at {@code /events}, and
 * the agent keeps a store only where that port is on.
 *
 * <p>It runs its own {@link EventCorrelator} (jkubelet's defaults) so that repeated events carry a
 * count and a first timestamp here too, as {@code kubectl describe} would show them: an Update
 * applies the patch's {@code count}, {@code lastTimestamp} and {@code message} to the stored event
 * of that name. At most {@code capacity} events are kept; the least recently written goes first.
 *
 * <p>Thread-safe: every method but {@link #forget} (which only reaches the thread-safe correlator)
 * is {@code synchronized}, guarding {@code events}. {@link #list} returns copies.
 */
public final class EventStore implements Consumer<Event>, EventBroadcaster.Remembering {
  private static final Logger log = LoggerFactory.getLogger(EventStore.class);

  public static final int DEFAULT_CAPACITY = 1000;

  private final Correlator correlator;
  private long dropped;

  /** Guarded by {@code this}; access order, so a patched event counts as recent. */
  private final Lru<String, Event> events;

  /** A store of {@link #DEFAULT_CAPACITY} events with upstream's default correlation. */
  public static EventStore create(Clock clock) {
    return new EventStore(
        new EventCorrelator(clock, CorrelatorOptions.defaults()), DEFAULT_CAPACITY);
  }

  /** With any correlator: tests script its answers. */
  EventStore(Correlator correlator, int capacity) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("event store capacity must be > 0, got " + capacity);
    }
    this.correlator = Objects.requireNonNull(correlator);
    this.events = new Lru<>(capacity, (key, event) -> firstEviction());
  }

  /** Forgets what its correlator holds about the object with this UID. */
  @Override
  public void forget(String uid) {
    correlator.forget(uid);
  }

  @Override
  public synchronized void accept(Event event) {
    Correlation c = correlator.correlate(event);
    Event stored =
        switch (c) {
          case Correlation.Drop d -> {
            dropped++;
            log.debug(
                "event store: correlator dropped event {} reason {}: {}",
                d.event().getMetadata().getName(),
                d.event().getReason(),
                d.cause());
            yield null;
          }
          case Correlation.Create cr -> new EventBuilder(cr.event()).build();
          case Correlation.Update u -> applyPatch(u.event(), u.patch());
        };
    if (stored != null) {
      events.put(key(stored), stored);
      correlator.updateState(c.event(), stored);
    }
  }

  /**
   * The stored events, oldest first by lastTimestamp, optionally only those in {@code namespace}
   * and about the pod named {@code podName} and/or with UID {@code podUid} (container events
   * included).
   */
  public synchronized List<Event> list(
      Optional<String> namespace, Optional<String> podName, Optional<String> podUid) {
    List<Event> out = new ArrayList<>();
    for (Event e : events.values()) {
      var o = e.getInvolvedObject();
      if (namespace.isPresent() && !namespace.get().equals(e.getMetadata().getNamespace())) {
        continue;
      }
      if (podName.isPresent()
          && !("Pod".equals(o.getKind()) && podName.get().equals(o.getName()))) {
        continue;
      }
      if (podUid.isPresent() && !podUid.get().equals(o.getUid())) {
        continue;
      }
      out.add(new EventBuilder(e).build());
    }
    out.sort(BY_LAST_TIMESTAMP);
    return out;
  }

  /** Says once that the store is full; under the lock, on an eviction. */
  private void firstEviction() {
    if (events.evictions() == 1) {
      log.info(
          "event store: {} events kept; from now on the least recently written goes for each new"
              + " one (counted in jkubelet_cache_evictions_total)",
          events.max());
    }
  }

  /** The sizes of its correlator's LRU caches. */
  public List<EventCorrelator.CacheSize> correlatorCaches() {
    return correlator.caches();
  }

  /** How many events are kept now. */
  public synchronized int size() {
    return events.size();
  }

  /** The most events kept. */
  public int capacity() {
    return events.max();
  }

  /** Events dropped, least recently written first, because the store was at its capacity. */
  public synchronized long evicted() {
    return events.evictions();
  }

  /** Events the correlator dropped, for tests and logs. */
  public synchronized long dropped() {
    return dropped;
  }

  /** Oldest first by lastTimestamp; a stable sort keeps write order among equal times. */
  public static final Comparator<Event> BY_LAST_TIMESTAMP =
      Comparator.comparing(e -> instant(e.getLastTimestamp()));

  private static Instant instant(String ts) {
    if (ts == null) {
      return Instant.MIN;
    }
    try {
      return Instant.parse(ts);
    } catch (DateTimeParseException e) {
      return Instant.MIN;
    }
  }

  private Event applyPatch(Event update, String patch) {
    Event existing = events.get(key(update));
    if (existing == null) {
      return new EventBuilder(update).build();
    }
    Event next = new EventBuilder(existing).build();
    Map<?, ?> fields = ApiSerialization.SHARED.unmarshal(patch, Map.class);
    if (fields.get("count") instanceof Number n) {
      next.setCount(n.intValue());
    }
    if (fields.get("lastTimestamp") instanceof String s) {
      next.setLastTimestamp(s);
    }
    if (fields.get("message") instanceof String s) {
      next.setMessage(s);
    }
    return next;
  }

  private static String key(Event e) {
    return e.getMetadata().getNamespace() + "/" + e.getMetadata().getName();
  }
}
