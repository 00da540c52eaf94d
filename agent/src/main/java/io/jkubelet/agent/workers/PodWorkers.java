package io.jkubelet.agent.workers;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.util.Jitter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs syncs for pods: at most one at a time per pod, many pods in parallel. Ported in spirit from
 * upstream's {@code pod_workers.go}, with the explicit per-pod state machine of later releases.
 *
 * <ul>
 *   <li>An update for a pod that is busy waits as its one pending update; a newer update replaces
 *       it (the latest wins), except that a pending kill is never replaced.
 *   <li>A kill moves the pod to {@link PodState#TERMINATING}; later non-kill updates are ignored,
 *       except a {@link WorkType#CREATE}, which is kept and runs once the kill is done (a static
 *       pod whose manifest is removed and put back has the same UID).
 *   <li>After a successful sync the pod is due again after the resync interval (with jitter), or
 *       when the sync asked; after a failed sync, after the error backoff.
 * </ul>
 *
 * <p>Thread-safe: {@code lock} guards {@code workers} and every {@link Worker}'s fields. Syncs run
 * outside the lock, on the given executor (virtual threads in production).
 */
public final class PodWorkers {
  private static final Logger log = LoggerFactory.getLogger(PodWorkers.class);

  /** Where a pod is in its life, as the worker sees it. */
  public enum PodState {
    SYNCING,
    TERMINATING,
    TERMINATED
  }

  private final PodSyncFn syncFn;
  private final WorkQueue queue;
  private final Clock clock;
  private final Duration resyncInterval;
  private final Duration errorBackoff;
  private final DoubleSupplier random;
  private final ExecutorService executor;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition();
  private final Map<String, Worker> workers = new HashMap<>();

  private static final class Worker {
    UpdatePodOptions pending;
    UpdatePodOptions afterKill;
    boolean working;
    PodState state = PodState.SYNCING;
    Instant lastSyncTime = Instant.EPOCH.minusNanos(1);
  }

  public PodWorkers(
      PodSyncFn syncFn,
      WorkQueue queue,
      Clock clock,
      Duration resyncInterval,
      Duration errorBackoff,
      DoubleSupplier random,
      ExecutorService executor) {
    this.syncFn = syncFn;
    this.queue = queue;
    this.clock = clock;
    this.resyncInterval = resyncInterval;
    this.errorBackoff = errorBackoff;
    this.random = random;
    this.executor = executor;
  }

  /** Hands work to the pod's worker, starting one if it is idle. Never blocks on a sync. */
  public void update(UpdatePodOptions work) {
    String uid = work.uid();
    boolean startWorker = false;
    lock.lock();
    try {
      Worker w = workers.computeIfAbsent(uid, k -> new Worker());
      boolean killing = w.state != PodState.SYNCING;
      if (work.type() == WorkType.KILL) {
        if (w.pending != null && w.pending.type() == WorkType.KILL) {
          return; // a pending kill is never overwritten
        }
        w.state = PodState.TERMINATING;
        w.afterKill = null;
        w.pending = work;
      } else if (killing) {
        if (work.type() == WorkType.CREATE) {
          if (w.state == PodState.TERMINATED && !w.working && w.pending == null) {
            w.state = PodState.SYNCING;
            w.pending = work;
          } else {
            w.afterKill = work; // runs once the kill is done
          }
        } else {
          log.debug("pod workers: ignoring {} for pod {}, which is {}", work.type(), uid, w.state);
          return;
        }
      } else if (w.pending != null && w.pending.type() == WorkType.CREATE) {
        // Keep CREATE as the reason while carrying the newest pod.
        w.pending = new UpdatePodOptions(work.pod(), WorkType.CREATE, null);
      } else {
        w.pending = work;
      }
      if (!w.working && w.pending != null) {
        w.working = true;
        startWorker = true;
      }
    } finally {
      lock.unlock();
    }
    if (startWorker) {
      try {
        executor.execute(() -> run(uid));
      } catch (RejectedExecutionException e) {
        lock.lock();
        try {
          workers.get(uid).working = false;
        } finally {
          lock.unlock();
        }
        log.debug("pod workers: shutting down, dropped work for pod {}", uid);
      }
    }
  }

  private void run(String uid) {
    while (true) {
      UpdatePodOptions work;
      Instant lastSync;
      lock.lock();
      try {
        Worker w = workers.get(uid);
        work = w.pending;
        w.pending = null;
        if (work == null) {
          w.working = false;
          idle.signalAll();
          return;
        }
        lastSync = w.lastSyncTime;
      } finally {
        lock.unlock();
      }
      finish(uid, work, sync(uid, work, lastSync));
    }
  }

  /**
   * How one sync went: whether it succeeded, when the status it acted on was observed (null: not
   * said), and when the pod is due again.
   */
  private record Outcome(boolean ok, Instant observed, Duration requeue) {}

  /** Runs one sync, outside the lock, with the pod in the MDC. */
  private Outcome sync(String uid, UpdatePodOptions work, Instant lastSync) {
    Pod pod = work.pod();
    MDC.put("pod", PodConfig.fullName(pod));
    MDC.put("podUid", uid);
    try {
      SyncResult r = syncFn.sync(work, lastSync);
      Duration requeue =
          r.requeueAfter() != null ? r.requeueAfter() : Jitter.jitter(resyncInterval, 0.5, random);
      return new Outcome(true, r.statusObservedAt(), requeue);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Outcome(false, null, Jitter.jitter(errorBackoff, 0.5, random));
    } catch (Exception e) {
      log.warn(
          "pod workers: error syncing pod {} ({}): {}",
          pod.getMetadata().getName(),
          work.type(),
          e.toString());
      log.debug("pod workers: sync failure", e);
      return new Outcome(false, null, Jitter.jitter(errorBackoff, 0.5, random));
    } finally {
      MDC.remove("pod");
      MDC.remove("podUid");
    }
  }

  /** Records a sync's outcome: the pod's last sync time, its state after a kill, its requeue. */
  private void finish(String uid, UpdatePodOptions work, Outcome outcome) {
    lock.lock();
    try {
      Worker w = workers.get(uid);
      if (outcome.observed() != null) {
        // The next sync may reuse a status observed at or after this instant.
        w.lastSyncTime = outcome.observed().minusNanos(1);
      } else if (outcome.ok()) {
        w.lastSyncTime = clock.instant();
      }
      if (work.type() == WorkType.KILL && outcome.ok() && w.pending == null) {
        w.state = PodState.TERMINATED;
        if (w.afterKill != null) {
          w.state = PodState.SYNCING;
          w.pending = w.afterKill;
          w.afterKill = null;
        }
      }
      if (w.state == PodState.SYNCING || !outcome.ok()) {
        queue.enqueue(uid, outcome.requeue());
      } else {
        queue.forget(uid);
      }
    } finally {
      lock.unlock();
    }
  }

  /** The pod's state, or null when no worker knows it. */
  public PodState state(String uid) {
    lock.lock();
    try {
      Worker w = workers.get(uid);
      return w == null ? null : w.state;
    } finally {
      lock.unlock();
    }
  }

  /** Whether a sync of the pod runs now or is pending. */
  public boolean isWorking(String uid) {
    lock.lock();
    try {
      Worker w = workers.get(uid);
      return w != null && (w.working || w.pending != null);
    } finally {
      lock.unlock();
    }
  }

  /** The pods whose sync runs now or is pending: those {@link #isWorking} says true of. */
  public Set<String> working() {
    lock.lock();
    try {
      Set<String> out = new java.util.HashSet<>();
      workers.forEach(
          (uid, w) -> {
            if (w.working || w.pending != null) {
              out.add(uid);
            }
          });
      return out;
    } finally {
      lock.unlock();
    }
  }

  /** How many pods have a worker (idle or not); for {@code jkubelet_cache_entries}. */
  public int size() {
    lock.lock();
    try {
      return workers.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Forgets idle workers of pods that are neither desired nor still terminating: housekeeping calls
   * this so the map does not grow without bound.
   */
  public void forgetNonExistent(Set<String> desired) {
    lock.lock();
    try {
      workers
          .entrySet()
          .removeIf(
              e ->
                  !desired.contains(e.getKey())
                      && !e.getValue().working
                      && e.getValue().pending == null
                      && e.getValue().state == PodState.TERMINATED);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until each of these pods' kill is done (its worker {@link PodState#TERMINATED} and idle,
   * or no worker knows it), for graceful node shutdown. Returns whether all were before {@code
   * timeout}.
   */
  public boolean awaitTerminated(Collection<String> uids, Duration timeout)
      throws InterruptedException {
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (uids.stream()
          .map(workers::get)
          .anyMatch(w -> w != null && (w.state != PodState.TERMINATED || w.working))) {
        if (nanos <= 0) {
          return false;
        }
        nanos = idle.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Waits until no worker is busy, for tests and shutdown. Returns whether all went idle. */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (workers.values().stream().anyMatch(w -> w.working)) {
        if (nanos <= 0) {
          return false;
        }
        nanos = idle.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }
}
