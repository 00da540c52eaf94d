package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventSource;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.jkubelet.agent.util.Lru;
import io.jkubelet.agent.util.TokenBucket;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * client-go's {@code EventSourceObjectSpamFilter}: a token bucket per (source, involved object
 * without fieldPath), burst {@code burst}, refilled at {@code refillPerSecond}, starting full. A
 * {@link TokenBucket} on the correlator's clock is the same bucket as x/time/rate's {@code
 * Limiter.Allow}, which upstream uses. With {@code protectWarnings} a Warning and the first
 * occurrence of a reason for an object neither spend a token nor are dropped.
 *
 * <p>Not thread-safe: the correlator's lock guards it.
 */
final class SpamFilter {
  /** client-go's {@code getSpamKey}: source and involved object, without fieldPath. */
  record SpamKey(
      String component,
      String host,
      String kind,
      String namespace,
      String name,
      String uid,
      String apiVersion) {
    static SpamKey of(EventSource s, ObjectReference r) {
      return new SpamKey(
          s.getComponent(),
          s.getHost(),
          r.getKind(),
          r.getNamespace(),
          r.getName(),
          r.getUid(),
          r.getApiVersion());
    }
  }

  private final Clock clock;
  private final CorrelatorOptions options;
  private final Lru<SpamKey, SpamRecord> records;

  SpamFilter(Clock clock, CorrelatorOptions options) {
    this.clock = clock;
    this.options = options;
    this.records = Lru.counting(options.lruSize());
  }

  Lru<?, ?> cache() {
    return records;
  }

  /** Forgets the buckets of objects with this UID. */
  void forget(String uid) {
    records.keySet().removeIf(k -> uid.equals(k.uid()));
  }

  /** True when the event is to be dropped; a kept event spends a token unless it is protected. */
  boolean filter(SpamKey key, Event event) {
    SpamRecord record = records.get(key);
    if (record == null) {
      record = new SpamRecord(new TokenBucket(clock, options.refillPerSecond(), options.burst()));
      records.put(key, record);
    }
    if (options.protectWarnings()) {
      boolean firstOfReason = record.firstOf(String.valueOf(event.getReason()));
      if (firstOfReason || EventType.Warning.name().equals(event.getType())) {
        return false;
      }
    }
    return !record.bucket.tryAcquire().isZero();
  }

  /** An object's bucket, and the reasons seen for it. */
  private static final class SpamRecord {
    private final TokenBucket bucket;

    /** A handful per object: a list beats a hash set at this size. */
    private final List<String> reasons = new ArrayList<>(4);

    SpamRecord(TokenBucket bucket) {
      this.bucket = bucket;
    }

    /** True the first time this reason is seen for the object. */
    boolean firstOf(String reason) {
      for (int i = 0; i < reasons.size(); i++) {
        if (reasons.get(i).equals(reason)) {
          return false;
        }
      }
      reasons.add(reason);
      return true;
    }
  }
}
