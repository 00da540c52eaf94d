package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.jkubelet.agent.util.Lru;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

/**
 * client-go's {@code EventAggregator}: events that differ only in their message (same source,
 * involved object without fieldPath, type and reason) are counted by distinct message. When the
 * {@code maxSimilarEvents}-th distinct message arrives, with no gap longer than {@code
 * aggregateWindow} between them, the event becomes an aggregate with the message {@value
 * EventCorrelator#AGGREGATE_PREFIX}{@code <message>}.
 *
 * <p>Unlike upstream, the set of messages drops the message that completed it (upstream drops an
 * arbitrary one), so the outcome does not depend on hash order.
 *
 * <p>Not thread-safe: the correlator's lock guards it.
 */
final class EventAggregator {
  /** client-go's {@code EventAggregatorByReasonFunc} key: the spam key, type and reason. */
  record AggregateKey(SpamFilter.SpamKey object, String type, String reason) {}

  /** client-go's {@code aggregateRecord}. */
  private static final class AggregateRecord {
    final Set<String> messages = new HashSet<>();
    long lastNanos;
  }

  private final int maxSimilarEvents;
  private final long windowNanos;
  private final Lru<AggregateKey, AggregateRecord> records;

  EventAggregator(CorrelatorOptions options) {
    this.maxSimilarEvents = options.maxSimilarEvents();
    this.windowNanos = saturatedNanos(options.aggregateWindow());
    this.records = Lru.counting(options.lruSize());
  }

  Lru<?, ?> cache() {
    return records;
  }

  /** Forgets the records of objects with this UID. */
  void forget(String uid) {
    records.keySet().removeIf(k -> uid.equals(k.object().uid()));
  }

  /** Records the message; true when the event is to be combined into the aggregate. */
  boolean aggregate(AggregateKey key, String message, Instant now) {
    long nowNanos = nanos(now);
    AggregateRecord record = records.get(key);
    // Upstream: interval > maxInterval starts over, measured from the last similar event.
    if (record == null || nowNanos - record.lastNanos > windowNanos) {
      record = new AggregateRecord();
      records.put(key, record);
    }
    record.lastNanos = nowNanos;
    String localKey = message == null ? "" : message;
    boolean added = record.messages.add(localKey);
    if (record.messages.size() < maxSimilarEvents) {
      return false;
    }
    // Upstream pops any member so that the next distinct message aggregates again; popping the
    // one just added keeps the result independent of hash order.
    if (added) {
      record.messages.remove(localKey);
    } else {
      record.messages.remove(record.messages.iterator().next());
    }
    return true;
  }

  /**
   * The aggregate event for {@code event}, named after its object and the time.
   *
   * @param timestamp {@code now} as metav1.Time marshals it
   */
  static Event aggregateOf(Event event, Instant now, String timestamp) {
    Event aggregate = new Event();
    ObjectReference ref = event.getInvolvedObject();
    String objectName = ref == null || ref.getName() == null ? "" : ref.getName();
    ObjectMeta meta = new ObjectMeta();
    meta.setName(objectName + "." + hex16(nanos(now)));
    meta.setNamespace(event.getMetadata() == null ? null : event.getMetadata().getNamespace());
    aggregate.setMetadata(meta);
    aggregate.setCount(1);
    aggregate.setFirstTimestamp(timestamp);
    aggregate.setLastTimestamp(timestamp);
    aggregate.setInvolvedObject(event.getInvolvedObject());
    aggregate.setMessage(EventCorrelator.AGGREGATE_PREFIX + event.getMessage());
    aggregate.setType(event.getType());
    aggregate.setReason(event.getReason());
    aggregate.setSource(event.getSource());
    aggregate.setReportingComponent(event.getReportingComponent());
    aggregate.setReportingInstance(event.getReportingInstance());
    return aggregate;
  }

  private static long nanos(Instant t) {
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  private static String hex16(long v) {
    String h = Long.toHexString(v);
    return "0".repeat(Math.max(0, 16 - h.length())) + h;
  }
}
