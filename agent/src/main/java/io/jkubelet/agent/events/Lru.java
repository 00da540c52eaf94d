package io.jkubelet.agent.events;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An access-ordered LRU map that counts what it evicts; client-go uses golang-lru. Not thread-safe.
 */
final class Lru<K, V> extends LinkedHashMap<K, V> {
  private final int max;
  private long evictions;

  Lru(int max) {
    super(Math.min(max, 1 << 16) * 4 / 3 + 1, 0.75f, true);
    this.max = max;
  }

  @Override
  protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
    if (size() > max) {
      evictions++;
      return true;
    }
    return false;
  }

  int max() {
    return max;
  }

  /** Entries evicted, least recently used first, because the map was at {@code max}. */
  long evictions() {
    return evictions;
  }
}
