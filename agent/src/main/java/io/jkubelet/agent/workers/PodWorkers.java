package io.jkubelet.agent.workers;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.util.Guard;
import io.jkubelet.agent.util.Jitter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
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
 * <p>Thread-safe: {@code guard} guards {@code workers} and every {@link Worker}'s fields. Syncs run
 * outside it, on the given executor (virtual threads in production).
 */
public final class PodWorkers {
  private static final Logger log = LoggerFactory.getLogger(PodWorkers.class);

  /** Where a pod is in its life, as the worker sees it. */
  public enum PodState {
    SYNCING,
    TERMINATING,
    TERMINATED
  }

  /**
   * What the workers are built from.
   *
   * @param syncFn the sync of one pod
   * @param queue where a pod is put to be due again
   * @param clock the injected clock
   * @param resyncInterval a synced pod is due again after this, with jitter
   * @param errorBackoff a pod whose sync failed is due again after this, with jitter
   * @param random the jitter's source, in [0, 1)
   * @param executor runs the syncs (virtual threads in production)
   */
  public record Options(
      PodSyncFn syncFn,
      WorkQueue queue,
      Clock clock,
      Duration resyncInterval,
      Duration errorBackoff,
      DoubleSupplier random,
      ExecutorService executor) {}

  private final Options options;
  private final Guard guard = new Guard();
  private final Map<String, Worker> workers = new HashMap<>();

  private static final class Worker {
    UpdatePodOptions pending;
    UpdatePodOptions afterKill;
    boolean working;
    PodState state = PodState.SYNCING;
    Instant lastSyncTime = Instant.EPOCH.minusNanos(1);

    /** Whether a sync of the pod runs now or is pending. */
    boolean busy() {
      return working || pending != null;
    }
  }

  public PodWorkers(Options options) {
    this.options = options;
  }

  /** Hands work to the pod's worker, starting one if it is idle. Never blocks on a sync. */
  public void update(UpdatePodOptions work) {
    String uid = work.uid();
    if (guard.get(() -> enqueue(uid, work))) {
      try {
        options.executor().execute(() -> run(uid));
      } catch (RejectedExecutionException e) {
        guard.run(() -> workers.get(uid).working = false);
        log.debug("pod workers: shutting down, dropped work for pod {}", uid);
      }
    }
  }

  /** Under the guard: makes {@code work} the pod's pending work; whether a worker must start. */
  private boolean enqueue(String uid, UpdatePodOptions work) {
    Worker w = workers.computeIfAbsent(uid, k -> new Worker());
    boolean killing = w.state != PodState.SYNCING;
    if (work.type() == WorkType.KILL) {
      if (w.pending != null && w.pending.type() == WorkType.KILL) {
        return false; // a pending kill is never overwritten
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
        return false;
      }
    } else if (w.pending != null && w.pending.type() == WorkType.CREATE) {
      // Keep CREATE as the reason while carrying the newest pod.
      w.pending = new UpdatePodOptions(work.pod(), WorkType.CREATE, null);
    } else {
      w.pending = work;
    }
    if (!w.working && w.pending != null) {
      w.working = true;
      return true;
    }
    return false;
  }

  /** The pending work and the last sync time to run it with; null when the worker goes idle. */
  private record Next(UpdatePodOptions work, Instant lastSync) {}

  private void run(String uid) {
    while (true) {
      Next next =
          guard.get(
              () -> {
                Worker w = workers.get(uid);
                UpdatePodOptions work = w.pending;
                w.pending = null;
                if (work == null) {
                  w.working = false;
                  guard.signalAll();
                  return null;
                }
                return new Next(work, w.lastSyncTime);
              });
      if (next == null) {
        return;
      }
      finish(uid, next.work(), sync(uid, next.work(), next.lastSync()));
    }
  }

  /**
   * How one sync went: whether it succeeded, when the status it acted on was observed (null: not
   * said), and when the pod is due again.
   */
  private record Outcome(boolean ok, Instant observed, Duration requeue) {}

  /** Runs one sync, outside the guard, with the pod in the MDC. */
  private Outcome sync(String uid, UpdatePodOptions work, Instant lastSync) {
    Pod pod = work.pod();
    MDC.put("pod", PodConfig.fullName(pod));
    MDC.put("podUid", uid);
    try {
      SyncResult r = options.syncFn().sync(work, lastSync);
      Duration requeue =
          r.requeueAfter() != null ? r.requeueAfter() : jitter(options.resyncInterval());
      return new Outcome(true, r.statusObservedAt(), requeue);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Outcome(false, null, jitter(options.errorBackoff()));
    } catch (Exception e) {
      log.warn(
          "pod workers: error syncing pod {} ({}): {}",
          pod.getMetadata().getName(),
          work.type(),
          e.toString());
      log.debug("pod workers: sync failure", e);
      return new Outcome(false, null, jitter(options.errorBackoff()));
    } finally {
      MDC.remove("pod");
      MDC.remove("podUid");
    }
  }

  private Duration jitter(Duration d) {
    return Jitter.jitter(d, 0.5, options.random());
  }

  /** Records a sync's outcome: the pod's last sync time, its state after a kill, its requeue. */
  private void finish(String uid, UpdatePodOptions work, Outcome outcome) {
    guard.run(
        () -> {
          Worker w = workers.get(uid);
          if (outcome.observed() != null) {
            // The next sync may reuse a status observed at or after this instant.
            w.lastSyncTime = outcome.observed().minusNanos(1);
          } else if (outcome.ok()) {
            w.lastSyncTime = options.clock().instant();
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
            options.queue().enqueue(uid, outcome.requeue());
          } else {
            options.queue().forget(uid);
          }
        });
  }

  /** The pod's state, or null when no worker knows it. */
  public PodState state(String uid) {
    return guard.get(
        () -> {
          Worker w = workers.get(uid);
          return w == null ? null : w.state;
        });
  }

  /** Whether a sync of the pod runs now or is pending. */
  public boolean isWorking(String uid) {
    return guard.get(
        () -> {
          Worker w = workers.get(uid);
          return w != null && w.busy();
        });
  }

  /** The pods whose sync runs now or is pending: those {@link #isWorking} says true of. */
  public Set<String> working() {
    return guard.get(
        () -> {
          Set<String> out = new HashSet<>();
          workers.forEach(
              (uid, w) -> {
                if (w.busy()) {
                  out.add(uid);
                }
              });
          return out;
        });
  }

  /** How many pods have a worker (idle or not); for {@code jkubelet_cache_entries}. */
  public int size() {
    return guard.get(workers::size);
  }

  /**
   * Forgets idle workers of pods that are neither desired nor still terminating: housekeeping calls
   * this so the map does not grow without bound.
   */
  public void forgetNonExistent(Set<String> desired) {
    guard.run(
        () ->
            workers
                .entrySet()
                .removeIf(
                    e ->
                        !desired.contains(e.getKey())
                            && !e.getValue().busy()
                            && e.getValue().state == PodState.TERMINATED));
  }

  /**
   * Waits until each of these pods' kill is done (its worker {@link PodState#TERMINATED} and idle,
   * or no worker knows it), for graceful node shutdown. Returns whether all were before {@code
   * timeout}.
   */
  public boolean awaitTerminated(Collection<String> uids, Duration timeout)
      throws InterruptedException {
    return guard.awaitTrue(
        () ->
            uids.stream()
                .map(workers::get)
                .noneMatch(w -> w != null && (w.state != PodState.TERMINATED || w.working)),
        timeout);
  }

  /** Waits until no worker is busy, for tests and shutdown. Returns whether all went idle. */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    return guard.awaitTrue(() -> workers.values().stream().noneMatch(w -> w.working), timeout);
  }
}
