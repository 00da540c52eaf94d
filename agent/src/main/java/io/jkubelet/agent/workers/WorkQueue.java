package io.jkubelet.agent.workers;

import io.jkubelet.agent.util.Guard;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Pods due for a sync at a time on the injected clock ({@code pkg/kubelet/util/queue}). The sync
 * tick drains what is due. Thread-safe; {@code guard} guards {@code due}.
 */
public final class WorkQueue {
  private final Clock clock;
  private final Guard guard = new Guard();
  private final Map<String, Instant> due = new HashMap<>();

  public WorkQueue(Clock clock) {
    this.clock = clock;
  }

  /** How many pods are queued; for {@code jkubelet_cache_entries}. */
  public int size() {
    return guard.get(due::size);
  }

  /** Makes the pod due after {@code delay}, replacing an earlier due time. */
  public void enqueue(String uid, Duration delay) {
    guard.run(() -> due.put(uid, clock.instant().plus(delay)));
  }

  /** Removes and returns the UIDs that are due now. */
  public List<String> getWork() {
    Instant now = clock.instant();
    return guard.get(
        () -> {
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
        });
  }

  public void forget(String uid) {
    guard.run(() -> due.remove(uid));
  }
}
