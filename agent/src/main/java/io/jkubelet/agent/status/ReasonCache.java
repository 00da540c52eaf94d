package io.jkubelet.agent.status;

import io.jkubelet.agent.util.Lru;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Why each container last failed to start ({@code CrashLoopBackOff}, {@code ErrImagePull}...), as
 * upstream's {@code ReasonCache}: status generation shows it as the waiting reason until a start
 * succeeds.
 *
 * <p>Bounded as upstream's: an LRU of {@link #MAX_ENTRIES} containers ({@code
 * maxReasonCacheEntries}). Housekeeping forgets the containers of pods that are gone; should the
 * cache still fill, the least recently used reason goes (its container shows its waiting reason
 * again at its next failed start), and the eviction is counted and logged.
 *
 * <p>Thread-safe: every method holds the instance's lock, which guards {@code reasons}.
 */
public final class ReasonCache {
  private static final Logger log = LoggerFactory.getLogger(ReasonCache.class);

  /** Upstream's {@code maxReasonCacheEntries}. */
  public static final int MAX_ENTRIES = 1000;

  /** A waiting reason and its message. */
  public record Reason(String reason, String message) {}

  /** Access order: a read makes an entry recent, as golang-lru's Get. */
  private final Lru<String, Reason> reasons;

  /** A cache of upstream's {@link #MAX_ENTRIES}. */
  public static ReasonCache create() {
    return new ReasonCache(MAX_ENTRIES);
  }

  ReasonCache(int capacity) {
    this.reasons =
        new Lru<>(
            capacity,
            (container, reason) ->
                log.info(
                    "ReasonCache: {} containers cached; forgot the least recent, {} ({})",
                    capacity,
                    container,
                    reason.reason()));
  }

  private static String key(String uid, String container) {
    return uid + "/" + container;
  }

  public synchronized void add(String uid, String container, String reason, String message) {
    reasons.put(key(uid, container), new Reason(reason, message));
  }

  public synchronized void remove(String uid, String container) {
    reasons.remove(key(uid, container));
  }

  public synchronized Optional<Reason> get(String uid, String container) {
    return Optional.ofNullable(reasons.get(key(uid, container)));
  }

  /** Forgets every container of the pod. */
  public synchronized void forgetPod(String uid) {
    reasons.keySet().removeIf(k -> k.startsWith(uid + "/"));
  }

  /** How many containers have a reason; for {@code jkubelet_cache_entries}. */
  public synchronized int size() {
    return reasons.size();
  }

  /** The most containers kept. */
  public int capacity() {
    return reasons.max();
  }

  /** Reasons forgotten because the cache was full. */
  public synchronized long evictions() {
    return reasons.evictions();
  }
}
