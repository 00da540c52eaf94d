package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Guard;
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
 * <p>Thread-safe: {@code guard} guards {@code states}, {@code dirty}, {@code closed} and {@code
 * nextFullSync}, and is signalled on every change a waiter may wait for: the sync thread (for work
 * or the rate budget) and shutdown (for the writes).
 */
final class StatusSyncQueue {
  private static final Logger log = LoggerFactory.getLogger(StatusSyncQueue.class);

  /** What the sync thread does next: the pods to sync, and whether this is a periodic re-check. */
  record Work(List<String> uids, boolean full) {}

  /**
   * One pod's turn, handed out by {@link #take}.
   *
   * @param attempt 1, or one more than the failed attempts in a row before it
   * @param nextRetry when this attempt fails, the delay before the next
   * @param keptTerminal whether an earlier sync already kept the API's terminal phase (and said so)
   */
  record Turn(int attempt, Duration nextRetry, boolean keptTerminal) {}

  /**
   * What one sync works on: the turn and the cached status it writes.
   *
   * @param semantic the kubelet-owned part of {@code status} (see {@link StatusPatches#semantic})
   */
  record Attempt(String uid, Pod pod, PodStatus status, Map<String, Object> semantic, Turn turn) {
    int attempt() {
      return turn.attempt();
    }

    Duration nextRetry() {
      return turn.nextRetry();
    }
  }

  /** One pod's sync state; guarded by {@code guard}. */
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

  private final Guard guard = new Guard();
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
    return guard.get(
        () -> {
          nextFullSync = clock.instant().plus(syncPeriod);
          return !closed;
        });
  }

  /** Stops handing out work and wakes every waiter; false when already closed. */
  boolean close() {
    return guard.get(
        () -> {
          if (closed) {
            return false;
          }
          closed = true;
          guard.signalAll();
          return true;
        });
  }

  boolean isClosed() {
    return guard.get(() -> closed);
  }

  /**
   * The pod has a new accepted status: it is dirty when that differs from what the API holds, or
   * when {@code deletable} asks for its deletion. A version older than one already seen is ignored
   * (two threads set statuses of one pod).
   */
  void changed(String uid, long version, Map<String, Object> semantic, boolean deletable) {
    guard.run(
        () -> {
          State s = states.computeIfAbsent(uid, k -> new State());
          if (version <= s.version) {
            return;
          }
          s.version = version;
          s.latest = semantic;
          if (!s.gone) {
            s.deleteRequested |= deletable;
            markIfDirty(uid, s);
          }
        });
  }

  /** Forgets pods other than these. */
  void retainAll(Set<String> keep) {
    guard.run(
        () -> {
          states.keySet().retainAll(keep);
          dirty.retainAll(keep);
        });
  }

  /** Whether the pod has a status to write (now or after its retry delay). */
  boolean isDirty(String uid) {
    return guard.get(() -> dirty.contains(uid));
  }

  /**
   * Whether the pod needs no write: it is not dirty, and {@code apiSemantic} (the API's status, as
   * {@link StatusPatches#semantic}) is the latest status this queue was told of.
   */
  boolean agrees(String uid, Map<String, Object> apiSemantic) {
    return guard.get(
        () -> {
          State s = states.get(uid);
          return s != null
              && !s.gone
              && !dirty.contains(uid)
              && s.latest != null
              && s.latest.equals(apiSemantic);
        });
  }

  /**
   * Waits until each of these pods is settled (the API holds its latest status, or it is gone, or
   * the API keeps a terminal status of its own), at most {@code timeout}; whether that came first.
   * A pod whose write is in flight is not settled yet: it left {@code dirty} when its sync began.
   * Woken by each sync's end; false at once when closed.
   */
  boolean awaitWritten(Collection<String> uids, Duration timeout) throws InterruptedException {
    return guard
        .await(
            () -> {
              if (uids.stream().noneMatch(this::unsettled)) {
                return Optional.of(true);
              }
              return closed ? Optional.of(false) : Optional.<Boolean>empty();
            },
            timeout)
        .orElse(false);
  }

  /** Under {@code guard}. */
  private boolean unsettled(String uid) {
    State s = states.get(uid);
    return dirty.contains(uid)
        || s != null && !s.gone && !s.keptTerminal && !Objects.equals(s.latest, s.written);
  }

  /** Pods with a status to write now or after their retry delay. */
  int pending() {
    return guard.get(dirty::size);
  }

  /**
   * Waits until pods are due (changed, or their retry time came) or the periodic re-check is; null
   * once closed.
   */
  Work awaitWork() throws InterruptedException {
    return guard.call(
        () -> {
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
            guard.pause(untilNextWork(now));
          }
          return null;
        });
  }

  /** Dirty pods whose retry time has come. */
  List<String> dueNow() {
    return guard.get(() -> due(clock.instant()));
  }

  /**
   * Waits about {@code d} (less when woken); the rate budget's {@link
   * io.jkubelet.agent.util.Sleeper}.
   *
   * @throws InterruptedException when closed, so that a sync gives up at once
   */
  void pause(Duration d) throws InterruptedException {
    guard.call(
        () -> {
          if (closed) {
            throw new InterruptedException("stopping");
          }
          guard.pause(d);
          return null;
        });
  }

  /** Starts the pod's sync: it is no longer dirty. Empty when there is nothing to do for it. */
  Optional<Turn> take(String uid) {
    return guard.get(
        () -> {
          State s = states.get(uid);
          dirty.remove(uid);
          if (s == null || s.gone) {
            return Optional.empty();
          }
          s.deleteRequested = false; // this sync looks at the deletion
          return Optional.of(
              new Turn(s.failuresInRow + 1, retries.next(s.retryDelay), s.keptTerminal));
        });
  }

  /** Applies how the pod's sync ended; true when the pod is now forgotten for good. */
  boolean record(Attempt a, StatusSyncResult result) {
    return guard.get(
        () -> {
          guard.signalAll();
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
        });
  }

  /** Under {@code guard}. */
  private void inSync(Attempt a, State s) {
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

  /** Under {@code guard}. */
  private void markIfDirty(String uid, State s) {
    if (s.deleteRequested || !s.latest.equals(s.written)) {
      if (dirty.add(uid)) {
        guard.signalAll();
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

  /** Dirty pods whose retry time has come; under {@code guard}. */
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

  /** How long the thread may wait before anything is due; under {@code guard}. */
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
