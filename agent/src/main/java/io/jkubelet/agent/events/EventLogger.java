package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.jkubelet.agent.util.Lru;

/**
 * client-go's {@code eventLogger}: remembers, per event key, what the API server holds (name,
 * count, first timestamp), so that a repeat becomes a patch of the stored object rather than a new
 * one. An aggregate is filed under its {@link EventAggregator.AggregateKey}; any other event under
 * its {@link EventKey}.
 *
 * <p>Not thread-safe: the correlator's lock guards it.
 */
final class EventLogger {
  /** client-go's {@code getEventKey}: the aggregate key, fieldPath and message. */
  record EventKey(EventAggregator.AggregateKey similar, String fieldPath, String message) {}

  /** client-go's {@code eventLog}: what the API server holds for a key. */
  record EventLog(long count, String firstTimestamp, String name, String resourceVersion) {
    static EventLog of(Event e) {
      ObjectMeta meta = e.getMetadata();
      return new EventLog(
          e.getCount() == null ? 1 : e.getCount(),
          e.getFirstTimestamp(),
          meta == null ? null : meta.getName(),
          meta == null ? null : meta.getResourceVersion());
    }
  }

  /**
   * What observing an event found: whether it repeats one stored under {@code key}, and the entry
   * to store for it.
   */
  record Observation(Object key, boolean duplicate, EventLog next) {}

  private final Lru<Object, EventLog> observations;

  EventLogger(int lruSize) {
    this.observations = Lru.counting(lruSize);
  }

  Lru<?, ?> cache() {
    return observations;
  }

  /** The key an event is filed under. */
  static Object keyOf(
      EventAggregator.AggregateKey similar, boolean aggregate, String fieldPath, String message) {
    return aggregate ? similar : new EventKey(similar, fieldPath, message);
  }

  /** Forgets what is stored for events of objects with this UID. */
  void forget(String uid) {
    observations
        .keySet()
        .removeIf(
            k -> {
              EventAggregator.AggregateKey similar =
                  k instanceof EventKey e ? e.similar() : (EventAggregator.AggregateKey) k;
              return uid.equals(similar.object().uid());
            });
  }

  /** client-go's {@code eventObserve}, without storing: the caller decides with {@link #record}. */
  Observation observe(Object key, Event candidate) {
    EventLog last = observations.get(key);
    if (last != null && last.count > 0) {
      return new Observation(
          key,
          true,
          new EventLog(last.count + 1, last.firstTimestamp, last.name, last.resourceVersion));
    }
    return new Observation(key, false, EventLog.of(candidate));
  }

  void record(Observation o) {
    observations.put(o.key(), o.next());
  }

  /** After a successful write: what the API server now holds for the key. */
  void updateState(Object key, Event written) {
    observations.put(key, EventLog.of(written));
  }

  /**
   * The patch of the stored object for a duplicate: a copy of {@code candidate} with the stored
   * name, resourceVersion and firstTimestamp, the new count, and {@code lastTimestamp}.
   */
  static Correlation.Update update(Event candidate, EventLog stored, String lastTimestamp) {
    Event observed = copy(candidate);
    observed.getMetadata().setName(stored.name());
    observed.getMetadata().setResourceVersion(stored.resourceVersion());
    observed.setFirstTimestamp(stored.firstTimestamp());
    observed.setCount((int) Math.min(Integer.MAX_VALUE, stored.count()));
    observed.setLastTimestamp(lastTimestamp);
    return new Correlation.Update(observed, patchOf(observed));
  }

  /** client-go's two-way strategic merge patch of count, lastTimestamp and message. */
  private static String patchOf(Event event) {
    String message = event.getMessage();
    StringBuilder b = new StringBuilder(64 + (message == null ? 0 : message.length()));
    b.append("{\"count\":").append(event.getCount()).append(",\"lastTimestamp\":");
    appendJson(b, event.getLastTimestamp());
    b.append(",\"message\":");
    appendJson(b, message);
    return b.append('}').toString();
  }

  static void appendJson(StringBuilder b, String s) {
    if (s == null) {
      b.append("null");
      return;
    }
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == '\u2028' || c == '\u2029') {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }

  /** A shallow copy: new metadata, shared involvedObject and source. */
  private static Event copy(Event e) {
    Event c = new Event();
    ObjectMeta m = e.getMetadata();
    ObjectMeta cm = new ObjectMeta();
    if (m != null) {
      cm.setName(m.getName());
      cm.setNamespace(m.getNamespace());
      cm.setResourceVersion(m.getResourceVersion());
      cm.setUid(m.getUid());
      cm.setLabels(m.getLabels());
      cm.setAnnotations(m.getAnnotations());
    }
    c.setMetadata(cm);
    c.setApiVersion(e.getApiVersion());
    c.setKind(e.getKind());
    c.setInvolvedObject(e.getInvolvedObject());
    c.setSource(e.getSource());
    c.setType(e.getType());
    c.setReason(e.getReason());
    c.setMessage(e.getMessage());
    c.setCount(e.getCount());
    c.setFirstTimestamp(e.getFirstTimestamp());
    c.setLastTimestamp(e.getLastTimestamp());
    c.setEventTime(e.getEventTime());
    c.setAction(e.getAction());
    c.setRelated(e.getRelated());
    c.setReportingComponent(e.getReportingComponent());
    c.setReportingInstance(e.getReportingInstance());
    c.setSeries(e.getSeries());
    return c;
  }
}
