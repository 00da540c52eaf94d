package io.jkubelet.agent.util;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * An access-ordered LRU map of at most {@code max} entries that counts what it evicts (client-go
 * uses golang-lru): the event correlator's caches, the event store, the reason cache and the
 * webhooks' caches. Not thread-safe: its owner guards it.
 */
public final class Lru<K, V> extends LinkedHashMap<K, V> {
  private final int max;
  private final transient BiConsumer<K, V> onEvict;
  private long evictions;

  /**
   * @param onEvict told of each entry evicted because the map was full (after it is counted)
   */
  public Lru(int max, BiConsumer<K, V> onEvict) {
    super(16, 0.75f, true);
    if (max <= 0) {
      throw new IllegalArgumentException("an LRU's size must be > 0: " + max);
    }
    this.max = max;
    this.onEvict = onEvict;
  }

  /** An LRU map that counts its evictions and does nothing else on them. */
  public static <K, V> Lru<K, V> counting(int max) {
    return new Lru<>(max, (k, v) -> {});
  }

  @Override
  protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
    if (size() <= max) {
      return false;
    }
    evictions++;
    onEvict.accept(eldest.getKey(), eldest.getValue());
    return true;
  }

  public int max() {
    return max;
  }

  /** Entries evicted, least recently used first, because the map was at {@code max}. */
  public long evictions() {
    return evictions;
  }
}
