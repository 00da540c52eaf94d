package io.jkubelet.agent.pleg;

import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.util.Guard;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The runtime status of every pod, with the time it was observed, ported from the kubelet's {@code
 * pkg/kubelet/container/cache.go}.
 *
 * <p>A worker asks for a status {@link #getNewerThan newer than} its last action, so it never acts
 * on what it saw before it acted. Two things make a status newer: the PLEG's relist, which stamps
 * every pod at once through {@link #updateTime}, and the worker itself, which re-inspects its pod
 * right after its own runtime calls ({@link #set}), so that no sync waits for a relist.
 *
 * <p>Thread-safe: {@code guard} guards {@code entries} and {@code globalTime}, and is signalled on
 * every write; workers wait here on virtual threads (see {@link Guard}).
 */
public final class PodCache {
  private final Guard guard = new Guard();
  private final Map<String, Entry> entries = new HashMap<>();

  /**
   * When a relist last saw every pod; {@link Instant#MIN} until the first one. NOTE: not the epoch,
   * which a new worker's last sync time (just before it) would count as news: after a restart,
   * every pod the API source delivered before the first relist ended was then synced as having
   * nothing in the runtime, and its running sandbox was replaced.
   */
  private Instant globalTime = Instant.MIN;

  /** A cached status, or the error from inspecting the pod. */
  public record Entry(PodStatus status, Throwable error, Instant modified) {}

  /**
   * Sets the pod's status as observed at {@code observed}. An older observation than the one cached
   * is ignored, so a slow relist never overwrites what a worker saw after its own action.
   */
  public void set(PodRef pod, PodStatus status, Throwable error, Instant observed) {
    guard.run(
        () -> {
          Entry old = entries.get(pod.uid());
          if (old == null || !old.modified().isAfter(observed)) {
            entries.put(pod.uid(), new Entry(status, error, observed));
            guard.signalAll();
          }
        });
  }

  /** How many pods have an entry; for {@code jkubelet_cache_entries}. */
  public int size() {
    return guard.get(entries::size);
  }

  /** The cached entry, if any. */
  public Optional<Entry> get(String uid) {
    return guard.get(() -> Optional.ofNullable(entries.get(uid)));
  }

  /**
   * Waits until the pod's entry or the global timestamp is newer than {@code minTime}, then returns
   * the pod's status (empty when the runtime has nothing of it). Returns empty when the wait times
   * out.
   *
   * @throws InterruptedException when interrupted while waiting
   */
  public Optional<Entry> getNewerThan(PodRef pod, Instant minTime, Duration timeout)
      throws InterruptedException {
    return guard.await(
        () -> {
          Entry e = entries.get(pod.uid());
          boolean fresh = e != null && e.modified().isAfter(minTime);
          if (fresh || globalTime.isAfter(minTime)) {
            return Optional.of(e != null ? e : new Entry(PodStatus.empty(pod), null, globalTime));
          }
          return Optional.empty();
        },
        timeout);
  }

  /** Marks every pod as observed at {@code time}: a relist saw them all. */
  public void updateTime(Instant time) {
    guard.run(
        () -> {
          if (time.isAfter(globalTime)) {
            globalTime = time;
          }
          guard.signalAll();
        });
  }

  /** Whether a relist has seen every pod yet (false until the PLEG's first relist ends). */
  public boolean relisted() {
    return guard.get(() -> !globalTime.equals(Instant.MIN));
  }

  public void delete(String uid) {
    guard.run(() -> entries.remove(uid));
  }

  /** The UIDs of every cached pod. */
  public Set<String> uids() {
    return guard.get(() -> Set.copyOf(entries.keySet()));
  }

  /** A copy of every entry. */
  public Map<String, Entry> snapshot() {
    return guard.get(() -> Map.copyOf(new HashMap<>(entries)));
  }
}
