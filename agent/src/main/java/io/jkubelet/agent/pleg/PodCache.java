package io.jkubelet.agent.pleg;

import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The runtime status of every pod, with the time it was observed, ported from the kubelet's {@code
 * pkg/kubelet/container/cache.go}.
 *
 * <p>A worker asks for a status {@link #getNewerThan newer than} its last action, so it never acts
 * on what it saw before it acted. Two things make a status newer: the PLEG's relist, which stamps
 * every pod at once through {@link #updateTime}, and the worker itself, which re-inspects its pod
 * right after its own runtime calls ({@link #set}), so that no sync waits for a relist.
 *
 * <p>Thread-safe: {@code lock} guards {@code entries} and {@code globalTime}; {@code changed} is
 * signalled on every write. A {@link ReentrantLock} rather than {@code synchronized}, because
 * workers wait here on virtual threads.
 */
public final class PodCache {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
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
    lock.lock();
    try {
      Entry old = entries.get(pod.uid());
      if (old != null && old.modified().isAfter(observed)) {
        return;
      }
      entries.put(pod.uid(), new Entry(status, error, observed));
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** How many pods have an entry; for {@code jkubelet_cache_entries}. */
  public int size() {
    lock.lock();
    try {
      return entries.size();
    } finally {
      lock.unlock();
    }
  }

  /** The cached entry, if any. */
  public Optional<Entry> get(String uid) {
    lock.lock();
    try {
      return Optional.ofNullable(entries.get(uid));
    } finally {
      lock.unlock();
    }
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
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (true) {
        Entry e = entries.get(pod.uid());
        boolean fresh = e != null && e.modified().isAfter(minTime);
        if (fresh || globalTime.isAfter(minTime)) {
          return Optional.of(e != null ? e : new Entry(PodStatus.empty(pod), null, globalTime));
        }
        if (nanos <= 0) {
          return Optional.empty();
        }
        nanos = changed.awaitNanos(nanos);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Marks every pod as observed at {@code time}: a relist saw them all. */
  public void updateTime(Instant time) {
    lock.lock();
    try {
      if (time.isAfter(globalTime)) {
        globalTime = time;
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Whether a relist has seen every pod yet (false until the PLEG's first relist ends). */
  public boolean relisted() {
    lock.lock();
    try {
      return !globalTime.equals(Instant.MIN);
    } finally {
      lock.unlock();
    }
  }

  public void delete(String uid) {
    lock.lock();
    try {
      entries.remove(uid);
    } finally {
      lock.unlock();
    }
  }

  /** The UIDs of every cached pod. */
  public Set<String> uids() {
    lock.lock();
    try {
      return Set.copyOf(entries.keySet());
    } finally {
      lock.unlock();
    }
  }

  /** A copy of every entry. */
  public Map<String, Entry> snapshot() {
    lock.lock();
    try {
      return Map.copyOf(new HashMap<>(entries));
    } finally {
      lock.unlock();
    }
  }
}
