package io.jkubelet.agent.metrics;

import io.jkubelet.agent.events.EventCorrelator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The bounds of the agent's caches and queues (issue 14), read at each scrape:
 *
 * <ul>
 *   <li>{@code jkubelet_cache_entries{cache}}: what the cache or queue holds now;
 *   <li>{@code jkubelet_cache_capacity{cache}}: its bound: a fixed capacity, or for state kept per
 *       pod (and forgotten by housekeeping when the pod goes) the node's {@code maxPods};
 *   <li>{@code jkubelet_cache_evictions_total{cache}}: entries dropped because the bound was
 *       reached, for the caches that count them.
 * </ul>
 *
 * <p>Each subsystem's wiring {@link #add}s its caches; names are stable, lower_snake, and unique.
 * Thread-safe: the list is copy-on-write, and the suppliers are called on the scraping thread (they
 * must be cheap and thread-safe).
 */
public final class CacheCollector implements Collector {
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");

  /**
   * One cache or queue.
   *
   * @param name the {@code cache} label: lower_snake, unique
   * @param entries what it holds now
   * @param capacity its bound (positive)
   * @param evictions entries dropped at the bound so far; null when the cache does not count them
   */
  public record Cache(String name, IntSupplier entries, int capacity, LongSupplier evictions) {
    public Cache {
      Objects.requireNonNull(entries, "entries");
      if (name == null || !NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("a cache's name is lower_snake: " + name);
      }
      if (capacity <= 0) {
        throw new IllegalArgumentException("cache " + name + ": capacity must be > 0: " + capacity);
      }
    }
  }

  private final List<Cache> caches = new CopyOnWriteArrayList<>();

  /** Adds a cache without an eviction count. */
  public CacheCollector add(String name, IntSupplier entries, int capacity) {
    return add(new Cache(name, entries, capacity, null));
  }

  /** Adds a cache that counts what it drops at its bound. */
  public CacheCollector add(
      String name, IntSupplier entries, int capacity, LongSupplier evictions) {
    return add(new Cache(name, entries, capacity, Objects.requireNonNull(evictions)));
  }

  /**
   * Adds an event correlator's three LRU caches as {@code <prefix>_event_aggregator}, {@code
   * <prefix>_event_spam_filter} and {@code <prefix>_event_logger}.
   */
  public CacheCollector addCorrelator(
      String prefix, Supplier<List<EventCorrelator.CacheSize>> sizes) {
    for (EventCorrelator.CacheSize c : sizes.get()) {
      String name = c.name();
      IntSupplier entries = () -> find(sizes.get(), name).entries();
      LongSupplier evictions = () -> find(sizes.get(), name).evictions();
      add(prefix + "_event_" + name, entries, c.capacity(), evictions);
    }
    return this;
  }

  private static EventCorrelator.CacheSize find(List<EventCorrelator.CacheSize> all, String name) {
    return all.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
  }

  private synchronized CacheCollector add(Cache c) {
    if (caches.stream().anyMatch(x -> x.name().equals(c.name()))) {
      throw new IllegalArgumentException("cache " + c.name() + " is already registered");
    }
    caches.add(c);
    return this;
  }

  /** The registered caches, in the order added. */
  public List<Cache> caches() {
    return List.copyOf(caches);
  }

  @Override
  public List<Family> collect() {
    Family entries =
        Family.gauge(
            "jkubelet_cache_entries",
            "Entries in one of jkubelet's bounded caches or queues, by cache.");
    Family capacity =
        Family.gauge(
            "jkubelet_cache_capacity",
            "The bound of a cache or queue: its fixed capacity, or for state kept per pod (and"
                + " forgotten when the pod goes) the node's maxPods.");
    Family evictions =
        Family.counter(
            "jkubelet_cache_evictions_total",
            "Entries a cache or queue dropped because it was at its capacity, by cache.");
    for (Cache c : caches) {
      entries.add(c.entries().getAsInt(), "cache", c.name());
      capacity.add(c.capacity(), "cache", c.name());
      if (c.evictions() != null) {
        evictions.add(c.evictions().getAsLong(), "cache", c.name());
      }
    }
    return List.of(entries, capacity, evictions);
  }
}
