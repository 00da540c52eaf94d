package io.jkubelet.agent.status;

import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.util.Backoff;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which pods' statuses the sync thread must write, and when: the bookkeeping half of upstream's
 * {@code status.Manager}. A pod is dirty when its latest status differs from what the API was last
 * seen to hold (or its deletion must be looked at); a failed sync makes it due again after a
 * per-pod delay from {@link Backoff.Policy}; every {@code syncPeriod} all pods are due for a
 * re-check. The sync thread waits here for work, and for the rate budget ({@link #pause}), and
 * {@link #close} wakes it from either.
 *
 * <p>Thread-safe: {@code lock} guards {@code states}, {@code dirty}, {@code closed} and {@code
 * nextFullSync}; {@code wake} is signalled on every change the sync thread may wait for.
 */
final class StatusSyncQueue {
  private static final Logger log = LoggerFactory.getLogger(StatusSyncQueue.class);

  /** What the sync thread does next: the pods to sync, and whether this is a periodic re-check. */
  record Work(List<String> uids, boolean full) {}

  /** One pod's sync state; guarded by {@code lock}. */
  private static final class State {
    /** The cache version and semantic status of the latest status this queue was told of. */
    long version;

    Map<String, Object> latest;

    /** What the API was last seen to hold for this pod (written or confirmed), or null. */
    Map<String, Object> written;

    boolean gone;
    boolean deleteRequested;
    Instant retryAt;
    Duration retryDelay;
    int failuresInRow;
    boolean keptTerminal;
  }

  private final Clock clock;
  private final Duration syncPeriod;
  private final Backoff.Policy retries;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private final Condition settled = lock.newCondition();
  private final Map<String, State> states = new HashMap<>();
  private final Set<String> dirty = new LinkedHashSet<>();
  private boolean closed;
  private Instant nextFullSync;

  /**
   * @param syncPeriod how often every pod is due for a re-check
   * @param retries the delay after each failed sync of a pod, doubling
   */
  StatusSyncQueue(Clock clock, Duration syncPeriod, Backoff.Policy retries) {
    this.clock = clock;
    this.syncPeriod = syncPeriod;
    this.retries = retries;
  }

  /** Schedules the first re-check one period from now; false when already closed. */
  boolean open() {
    lock.lock();
    try {
      nextFullSync = clock.instant().plus(syncPeriod);
      return !closed;
    } finally {
      lock.unlock();
    }
  }

  /** Stops handing out work and wakes every waiter; false when already closed. */
  boolean close() {
    lock.lock();
    try {
      if (closed) {
        return false;
      }
      closed = true;
      wake.signalAll();
      settled.signalAll();
      return true;
    } finally {
      lock.unlock();
    }
  }

  boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The pod has a new accepted status: it is dirty when that differs from what the API holds, or
   * when {@code deletable} asks for its deletion. A version older than one already seen is ignored
   * (two threads set statuses of one pod).
   */
  void changed(String uid, long version, Map<String, Object> semantic, boolean deletable) {
    lock.lock();
    try {
      State s = states.computeIfAbsent(uid, k -> new State());
      if (version <= s.version) {
        return;
      }
      s.version = version;
      s.latest = semantic;
      if (s.gone) {
        return;
      }
      s.deleteRequested |= deletable;
      markIfDirty(uid, s);
    } finally {
      lock.unlock();
    }
  }

  /** Forgets pods other than these. */
  void retainAll(Set<String> keep) {
    lock.lock();
    try {
      states.keySet().retainAll(keep);
      dirty.retainAll(keep);
    } finally {
      lock.unlock();
    }
  }

  /** Whether the pod has a status to write (now or after its retry delay). */
  boolean isDirty(String uid) {
    lock.lock();
    try {
      return dirty.contains(uid);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether the pod needs no write: it is not dirty, and {@code apiSemantic} (the API's status, as
   * {@link StatusPatches#semantic}) is the latest status this queue was told of.
   */
  boolean agrees(String uid, Map<String, Object> apiSemantic) {
    lock.lock();
    try {
      State s = states.get(uid);
      return s != null
          && !s.gone
          && !dirty.contains(uid)
          && s.latest != null
          && s.latest.equals(apiSemantic);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until each of these pods is settled (the API holds its latest status, or it is gone, or
   * the API keeps a terminal status of its own), at most {@code timeout}; whether that came first.
   * A pod whose write is in flight is not settled yet: it left {@code dirty} when its sync began.
   * Woken by each sync's end.
   */
  boolean awaitWritten(Collection<String> uids, Duration timeout) throws InterruptedException {
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (uids.stream().anyMatch(this::unsettled)) {
        if (nanos <= 0 || closed) {
          return false;
        }
        nanos = settled.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Under {@code lock}. */
  private boolean unsettled(String uid) {
    State s = states.get(uid);
    return dirty.contains(uid)
        || s != null && !s.gone && !s.keptTerminal && !Objects.equals(s.latest, s.written);
  }

  /** Pods with a status to write now or after their retry delay. */
  int pending() {
    lock.lock();
    try {
      return dirty.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until pods are due (changed, or their retry time came) or the periodic re-check is; null
   * once closed.
   */
  Work awaitWork() throws InterruptedException {
    lock.lock();
    try {
      while (!closed) {
        Instant now = clock.instant();
        if (!now.isBefore(nextFullSync)) {
          nextFullSync = now.plus(syncPeriod);
          return new Work(new ArrayList<>(states.keySet()), true);
        }
        List<String> due = due(now);
        if (!due.isEmpty()) {
          return new Work(due, false);
        }
        // Deadlines are on the injected clock: re-read it after every wake-up.
        wake.awaitNanos(untilNextWork(now).toNanos());
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  /** Dirty pods whose retry time has come. */
  List<String> dueNow() {
    lock.lock();
    try {
      return due(clock.instant());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits about {@code d} (less when woken); the rate budget's {@link
   * io.jkubelet.agent.util.Sleeper}.
   *
   * @throws InterruptedException when closed, so that a sync gives up at once
   */
  void pause(Duration d) throws InterruptedException {
    lock.lock();
    try {
      if (closed) {
        throw new InterruptedException("stopping");
      }
      wake.awaitNanos(d.toNanos());
    } finally {
      lock.unlock();
    }
  }

  /** Starts the pod's sync: it is no longer dirty. Empty when there is nothing to do for it. */
  Optional<SyncAttempt.Turn> take(String uid) {
    lock.lock();
    try {
      State s = states.get(uid);
      dirty.remove(uid);
      if (s == null || s.gone) {
        return Optional.empty();
      }
      s.deleteRequested = false; // this sync looks at the deletion
      return Optional.of(
          new SyncAttempt.Turn(
              s.failuresInRow + 1, retries.next(s.retryDelay), s.keptTerminal, s.written));
    } finally {
      lock.unlock();
    }
  }

  /** Applies how the pod's sync ended; true when the pod is now forgotten for good. */
  boolean record(SyncAttempt a, StatusSyncResult result) {
    lock.lock();
    try {
      settled.signalAll();
      State s = states.get(a.uid());
      if (s == null) {
        return false; // removed as an orphan meanwhile
      }
      switch (result) {
        case WRITTEN, IN_SYNC -> inSync(a, s);
        case KEPT_TERMINAL -> {
          clearRetry(s);
          s.keptTerminal = true;
        }
        case GONE, DELETED -> {
          s.gone = true;
          dirty.remove(a.uid());
          return true;
        }
        case NO_MIRROR, RETRY -> {
          s.retryDelay = a.nextRetry();
          s.retryAt = clock.instant().plus(a.nextRetry());
          if (result == StatusSyncResult.RETRY) {
            s.failuresInRow = a.attempt();
          }
          dirty.add(a.uid());
        }
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** Under {@code lock}. */
  private void inSync(SyncAttempt a, State s) {
    if (s.failuresInRow > 0) {
      log.info(
          "StatusManager: {} is in sync again after {} failed attempts",
          PodConfig.fullName(a.pod()),
          s.failuresInRow);
    }
    s.written = a.semantic();
    clearRetry(s);
    // A status set while we wrote was compared with the older written one: decide again.
    markIfDirty(a.uid(), s);
  }

  /** Under {@code lock}. */
  private void markIfDirty(String uid, State s) {
    if (s.deleteRequested || !s.latest.equals(s.written)) {
      if (dirty.add(uid)) {
        wake.signalAll();
      }
    } else {
      dirty.remove(uid);
    }
  }

  private static void clearRetry(State s) {
    s.retryAt = null;
    s.retryDelay = null;
    s.failuresInRow = 0;
  }

  /** Dirty pods whose retry time has come; under {@code lock}. */
  private List<String> due(Instant now) {
    List<String> out = new ArrayList<>();
    for (String uid : dirty) {
      State s = states.get(uid);
      if (s != null && (s.retryAt == null || !now.isBefore(s.retryAt))) {
        out.add(uid);
      }
    }
    return out;
  }

  /** How long the thread may wait before anything is due; under {@code lock}. */
  private Duration untilNextWork(Instant now) {
    Instant next = nextFullSync;
    for (String uid : dirty) {
      State s = states.get(uid);
      if (s != null && s.retryAt != null && s.retryAt.isBefore(next)) {
        next = s.retryAt;
      }
    }
    Duration d = Duration.between(now, next);
    return d.isNegative() || d.isZero() ? Duration.ofMillis(1) : d;
  }
}
