package io.jkubelet.agent;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.admission.PodAdmitter;
import io.jkubelet.agent.gc.Housekeeping;
import io.jkubelet.agent.loop.SyncHandler;
import io.jkubelet.agent.loop.SyncLoop;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.agent.parts.PodParts;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.pod.MirrorClient;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.podconfig.Annotations;
import io.jkubelet.agent.prober.ProbeManager;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.util.Time;
import io.jkubelet.agent.workers.PodWorkers;
import io.jkubelet.agent.workers.UpdatePodOptions;
import io.jkubelet.agent.workers.UpdatePodOptions.KillPodOptions;
import io.jkubelet.agent.workers.WorkQueue;
import io.jkubelet.agent.workers.WorkType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SyncHandler}: what the sync loop dispatches becomes work for the pod workers and the
 * probes, as upstream's {@code HandlePodAdditions} and its siblings. It owns no thread and starts
 * nothing; {@link Agent} builds it and runs the loop that calls it.
 *
 * <p>Called from the sync loop's one thread. Slow work (housekeeping, removing a pod's dead
 * containers, finishing a mirror pod's deletion) goes to {@code background}, so the loop never
 * waits on the runtime or the API server.
 */
public final class Kubelet implements SyncHandler {
  private static final Logger log = LoggerFactory.getLogger(Kubelet.class);

  /**
   * What the node knows of its pods: the desired pods, the runtime's view, the objects they use,
   * and their mirror pods ({@code mirrors} is null in standalone mode).
   */
  record Pods(PodManager podManager, PodCache cache, PodObjects objects, MirrorClient mirrors) {}

  /** The collaborators a handler acts on. */
  record Parts(
      Pods pods,
      WorkQueue workQueue,
      PodWorkers workers,
      ProbeManager probes,
      PodAdmitter admitter,
      Housekeeping housekeeping,
      ExecutorService background,
      PodTimelines timelines) {}

  static final Duration SYNC_TICK = Duration.ofSeconds(1);
  static final Duration HOUSEKEEPING_TICK = Duration.ofSeconds(2);

  private final Parts p;
  private final AtomicBoolean housekeepingRunning = new AtomicBoolean();

  Kubelet(Parts parts) {
    this.p = parts;
  }

  /**
   * The sync loop over a handler on {@code parts}: a sync tick each second, housekeeping each 2.
   */
  static SyncLoop loop(PodParts parts, Time time) {
    var in = parts.in;
    Kubelet kubelet =
        new Kubelet(
            new Parts(
                new Pods(parts.podManager, parts.cache, in.objects(), in.mirrors()),
                parts.workQueue,
                parts.workers,
                parts.probes,
                parts.admitter,
                parts.housekeeping,
                parts.background,
                parts.in.timelines()));
    return new SyncLoop(
        kubelet,
        new SyncLoop.Pods(parts.podManager::byUid, kubelet::podsToSync, parts.sourcesReady),
        parts.channels.select(),
        new SyncLoop.Ticks(
            parts.channels.sync(), parts.channels.housekeeping(), SYNC_TICK, HOUSEKEEPING_TICK),
        time);
  }

  @Override
  public void handlePodAdditions(List<Pod> pods) {
    for (Pod pod : pods) {
      p.pods().podManager().addOrUpdate(pod);
      if (Annotations.isMirror(pod)) {
        continue; // never run; housekeeping matches it with its static pod
      }
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        // Deleted while jkubelet was not running: as upstream's syncPod, a pod being deleted is
        // never started, only stopped, and it is not admitted first (it is not going to run).
        p.pods().objects().register(pod);
        killForDeletion(pod);
        continue;
      }
      PodTimelines.Span admission = p.timelines().admission(pod);
      if (!p.admitter().admit(pod, p.pods().podManager().pods())) {
        admission.fail("rejected by admission");
        continue;
      }
      admission.end();
      p.pods().objects().register(pod); // its secrets and configMaps are watched from now on
      p.workers().update(UpdatePodOptions.of(pod, WorkType.CREATE));
      p.probes().addPod(pod);
    }
  }

  @Override
  public void handlePodUpdates(List<Pod> pods) {
    for (Pod pod : pods) {
      p.pods().podManager().addOrUpdate(pod);
      if (Annotations.isMirror(pod)) {
        if (pod.getMetadata().getDeletionTimestamp() != null && p.pods().mirrors() != null) {
          // Deleted by hand: finish the deletion; housekeeping creates it again.
          runInBackground(() -> p.pods().mirrors().delete(pod));
        }
        continue;
      }
      if (p.admitter().isRejected(pod)) {
        continue;
      }
      p.pods().objects().register(pod); // an update may refer to other objects
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        killForDeletion(pod);
      } else {
        p.workers().update(UpdatePodOptions.of(pod, WorkType.UPDATE));
        p.probes().addPod(pod); // a static pod edited in place may have changed its probes
      }
    }
  }

  /** Stops a pod being deleted within its deletion's grace period; its final status follows. */
  private void killForDeletion(Pod pod) {
    p.workers().update(new UpdatePodOptions(pod, WorkType.KILL, KillPodOptions.deletion(pod)));
  }

  @Override
  public void handlePodRemoves(List<Pod> pods) {
    for (Pod pod : pods) {
      p.pods().podManager().delete(pod);
      if (Annotations.isMirror(pod)) {
        continue;
      }
      p.admitter().forget(pod.getMetadata().getUid());
      p.timelines().forget(pod.getMetadata().getUid());
      p.pods().objects().unregister(pod);
      p.probes().removePod(pod.getMetadata().getUid());
      p.workers()
          .update(
              new UpdatePodOptions(
                  pod, WorkType.KILL, new KillPodOptions(null, true, "pod removed", false)));
    }
  }

  @Override
  public void handlePodReconcile(List<Pod> pods) {
    pods.forEach(p.pods().podManager()::addOrUpdate);
  }

  @Override
  public void handlePodSyncs(List<Pod> pods) {
    for (Pod pod : pods) {
      if (!p.admitter().isRejected(pod) && !Annotations.isMirror(pod)) {
        p.workers().update(UpdatePodOptions.of(pod, WorkType.SYNC));
      }
    }
  }

  @Override
  public void cleanUpContainersInPod(String podUid, String containerId) {
    if (p.pods().podManager().byUid(podUid).isEmpty()) {
      return; // housekeeping removes all of it
    }
    runInBackground(
        () ->
            p.pods()
                .cache()
                .get(podUid)
                .ifPresent(e -> p.housekeeping().containerGc().onContainerDied(e.status())));
  }

  /** Runs housekeeping in the background, unless the previous run is still going. */
  @Override
  public void handlePodCleanups() {
    if (!housekeepingRunning.compareAndSet(false, true)) {
      log.debug("Housekeeping: the previous run is still going; skipping");
      return;
    }
    boolean submitted =
        runInBackground(
            () -> {
              try {
                p.housekeeping().run();
              } catch (RuntimeException e) {
                log.warn("Housekeeping failed: {}", e.toString());
              } finally {
                housekeepingRunning.set(false);
              }
            });
    if (!submitted) {
      housekeepingRunning.set(false);
    }
  }

  /** The desired pods whose periodic resync or retry is due: drains the work queue. */
  List<Pod> podsToSync() {
    List<Pod> due = new ArrayList<>();
    for (String uid : p.workQueue().getWork()) {
      p.pods().podManager().byUid(uid).ifPresent(due::add);
    }
    return due;
  }

  /** Hands a task to the background thread; false when it is shut down (jkubelet is stopping). */
  private boolean runInBackground(Runnable task) {
    try {
      p.background().execute(task);
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }
}
