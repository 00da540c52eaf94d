package io.jkubelet.agent.workers;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Pods due for a sync at a time on the injected clock ({@code pkg/kubelet/util/queue}). The sync
 * tick drains what is due. Thread-safe; {@code lock} guards {@code due}.
 */
public final class WorkQueue {
  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, Instant> due = new HashMap<>();

  public WorkQueue(Clock clock) {
    this.clock = clock;
  }

  /** How many pods are queued; for {@code jkubelet_cache_entries}. */
  public int size() {
    lock.lock();
    try {
      return due.size();
    } finally {
      lock.unlock();
    }
  }

  /** Makes the pod due after {@code delay}, replacing an earlier due time. */
  public void enqueue(String uid, Duration delay) {
    lock.lock();
    try {
      due.put(uid, clock.instant().plus(delay));
    } finally {
      lock.unlock();
    }
  }

  /** Removes and returns the UIDs that are due now. */
  public List<String> getWork() {
    Instant now = clock.instant();
    lock.lock();
    try {
      List<String> ready = new ArrayList<>();
      due.entrySet()
          .removeIf(
              e -> {
                if (!e.getValue().isAfter(now)) {
                  ready.add(e.getKey());
                  return true;
                }
                return false;
              });
      return ready;
    } finally {
      lock.unlock();
    }
  }

  public void forget(String uid) {
    lock.lock();
    try {
      due.remove(uid);
    } finally {
      lock.unlock();
    }
  }
}
