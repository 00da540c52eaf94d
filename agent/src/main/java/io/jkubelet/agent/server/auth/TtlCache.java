package io.jkubelet.agent.server.auth;

import io.jkubelet.agent.util.Lru;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A small LRU cache whose entries expire after a TTL chosen per entry, on the injected clock; the
 * webhooks' caches. At {@code capacity}, the least recently used entry goes (counted in {@link
 * #evictions()}); an expired entry stays until it is read or evicted. Thread-safe: every method
 * holds the instance's lock.
 */
final class TtlCache<K, V> {
  private record Slot<V>(V value, Instant expires) {}

  private final Clock clock;
  private final Lru<K, Slot<V>> entries;

  TtlCache(Clock clock, int capacity) {
    this.clock = clock;
    this.entries = Lru.counting(capacity);
  }

  synchronized Optional<V> get(K key) {
    Slot<V> e = entries.get(key);
    if (e == null) {
      return Optional.empty();
    }
    if (!clock.instant().isBefore(e.expires())) {
      entries.remove(key);
      return Optional.empty();
    }
    return Optional.of(e.value());
  }

  synchronized int size() {
    return entries.size();
  }

  synchronized long evictions() {
    return entries.evictions();
  }

  synchronized void put(K key, V value, Duration ttl) {
    if (ttl.isZero() || ttl.isNegative()) {
      return;
    }
    entries.put(key, new Slot<>(value, clock.instant().plus(ttl)));
  }
}
