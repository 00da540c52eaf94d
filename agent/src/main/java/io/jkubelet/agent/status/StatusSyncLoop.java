package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.status.StatusSyncQueue.Work;
import io.jkubelet.agent.status.SyncAttempt.Turn;
import io.jkubelet.agent.util.Lifecycle.Health;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The one sync thread of the API status manager, as upstream's {@code syncBatch} loop: takes due
 * pods from the {@link StatusSyncQueue}, writes each pod's cached status with the {@link
 * ApiStatusWriter}, and hands the result back to the queue. A periodic re-check walks every pod,
 * letting changed pods jump the queue between them; it syncs only the pods that upstream's {@code
 * needsUpdate} or {@code needsReconcile} would: those with a status still to write, and those whose
 * API object, as the pod source last saw it, has another status than ours or may now be deleted.
 * The others cost no request.
 *
 * <p>The thread survives any exception; an {@link Error} kills it, and {@link #healthy()} says so.
 * It waits only inside the queue (on a condition, with deadlines on the injected clock), so {@link
 * #stop()} wakes it at once unless it is blocked in a request, which {@link #stop()} interrupts.
 *
 * <p>Thread-safe: {@code thread} is set once, in {@code start}, which is {@code synchronized} on
 * this, and is volatile for {@link #healthy()}; {@code died} is written by the dying thread only.
 */
final class StatusSyncLoop {
  private static final Logger log = LoggerFactory.getLogger(StatusSyncLoop.class);
  private static final String THREAD_NAME = "status-manager";
  private static final long JOIN_MILLIS = 2000;

  private final StatusCache cache;
  private final StatusSyncQueue queue;
  private final ApiStatusWriter writer;
  private final StatusCounters counters;
  private final Function<String, Optional<Pod>> seen;

  private volatile Thread thread;
  private volatile Throwable died;

  StatusSyncLoop(
      StatusCache cache,
      StatusSyncQueue queue,
      ApiStatusWriter writer,
      StatusCounters counters,
      Function<String, Optional<Pod>> seen) {
    this.seen = seen;
    this.cache = cache;
    this.queue = queue;
    this.writer = writer;
    this.counters = counters;
  }

  /**
   * Starts the thread; false when it runs already.
   *
   * @throws IllegalStateException after {@link #stop()}
   */
  synchronized boolean start() {
    if (thread != null) {
      return false;
    }
    if (!queue.open()) {
      throw new IllegalStateException("StatusManager: cannot start again after stop");
    }
    Thread t =
        Thread.ofVirtual()
            .name(THREAD_NAME)
            .uncaughtExceptionHandler(
                (th, e) -> {
                  died = e;
                  log.error("StatusManager: the sync thread died", e);
                })
            .unstarted(this::run);
    thread = t;
    t.start();
    return true;
  }

  /** Stops the thread and waits briefly for it; false when already stopped. */
  boolean stop() {
    if (!queue.close()) {
      return false;
    }
    Thread t = thread;
    if (t != null) {
      try {
        t.join(JOIN_MILLIS);
        if (t.isAlive()) {
          t.interrupt(); // blocked in a request
          t.join(JOIN_MILLIS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return true;
  }

  Health healthy() {
    Thread t = thread;
    if (t == null) {
      return Health.failing("StatusManager has not started");
    }
    Throwable d = died;
    if (d != null || !t.isAlive()) {
      if (queue.isClosed()) {
        return Health.failing("StatusManager is stopped");
      }
      return Health.failing("StatusManager: the sync thread died" + (d == null ? "" : ": " + d));
    }
    return Health.OK;
  }

  private void run() {
    log.debug("StatusManager: sync thread started");
    while (true) {
      try {
        Work work = queue.awaitWork();
        if (work == null) {
          return;
        }
        syncBatch(work);
      } catch (InterruptedException e) {
        if (queue.isClosed()) {
          return;
        }
        Thread.interrupted(); // a stray interrupt: keep going
      } catch (RuntimeException e) {
        log.error("StatusManager: unexpected failure in the sync thread, continuing", e);
      }
    }
  }

  private void syncBatch(Work work) throws InterruptedException {
    Set<String> done = new HashSet<>();
    for (String uid : work.uids()) {
      if (work.full()) {
        // A re-check of many pods takes a while under the rate budget: changes jump the queue.
        for (String changed : queue.dueNow()) {
          if (queue.isClosed()) {
            return;
          }
          syncPod(changed);
          done.add(changed);
        }
      }
      if (queue.isClosed()) {
        return;
      }
      if (done.add(uid) && (!work.full() || needsSync(uid))) {
        syncPod(uid);
      }
    }
    if (work.full()) {
      counters.resynced();
      log.debug(
          "StatusManager: re-checked {} pods; {}",
          work.uids().size(),
          counters.snapshot(queue.pending()));
    }
  }

  /**
   * Whether the re-check must sync the pod: it has a status still to write, or the pod source's
   * copy of its API object has another status than ours (upstream's {@code needsReconcile}) or is
   * being deleted and may now go. A pod the source does not have (gone from the API; a static pod
   * without a mirror yet) is left to the queue and the orphan cleanup.
   */
  private boolean needsSync(String uid) {
    Optional<Pod> api = seen.apply(uid);
    if (api.isEmpty()) {
      return queue.isDirty(uid);
    }
    if (writer.deletable(api.get())) {
      return true;
    }
    if (queue.agrees(uid, StatusPatches.semantic(api.get().getStatus()))) {
      return false;
    }
    log.debug(
        "StatusManager: the status of {} in the API differs from ours, syncing it",
        PodConfig.fullName(api.get()));
    return true;
  }

  private void syncPod(String uid) throws InterruptedException {
    Optional<Turn> turn = queue.take(uid);
    Optional<StatusCache.Cached> cached = cache.get(uid);
    if (turn.isEmpty() || cached.isEmpty()) {
      return;
    }
    StatusCache.Cached c = cached.get();
    SyncAttempt a =
        new SyncAttempt(uid, c.pod(), c.status(), StatusPatches.semantic(c.status()), turn.get());
    StatusSyncResult result;
    MDC.put("pod", PodConfig.fullName(a.pod()));
    MDC.put("podUid", uid);
    try {
      result = writer.sync(a);
    } catch (KubernetesClientException e) {
      if (queue.isClosed()) {
        return; // interrupted by stop()
      }
      result = writer.failed(a, "sync", e);
    } finally {
      MDC.remove("pod");
      MDC.remove("podUid");
    }
    if (queue.record(a, result)) {
      counters.forgot();
    }
  }
}
