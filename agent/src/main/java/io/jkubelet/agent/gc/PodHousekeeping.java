package io.jkubelet.agent.gc;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.jkubelet.agent.cm.CgroupException;
import io.jkubelet.agent.cm.ContainerManager;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.pod.MirrorClient;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.podconfig.Annotations;
import io.jkubelet.agent.prober.ProbeManager;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.status.ReasonCache;
import io.jkubelet.agent.status.StatusManager;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.volume.VolumeManager;
import io.jkubelet.agent.workers.PodWorkers;
import io.jkubelet.agent.workers.UpdatePodOptions;
import io.jkubelet.agent.workers.UpdatePodOptions.KillPodOptions;
import io.jkubelet.agent.workers.WorkType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Housekeeping ({@code HandlePodCleanups} upstream): kills and removes pods that are no longer
 * desired, runs container garbage collection with the operator's policy every {@code
 * containerGcPeriod} ({@link ContainerGc}, upstream's {@code ContainerGCPeriod}), and forgets the
 * state of pods that are gone (the event correlators' entries too), and removes their directories
 * and log directories (upstream's {@code evictPodLogsDirectories}, through a callback); removes the
 * cgroups of pods that are neither desired, nor in the runtime, nor being worked on (upstream's
 * {@code cleanupOrphanedPodCgroups}; one with processes left is tried again next time) and brings
 * the QoS tiers' shares up to date. Only containers with an {@code io.kubernetes.pod.uid} label are
 * ever touched: the runtime lists nothing else.
 *
 * <p>Not thread-safe: the caller runs it on one thread at a time.
 */
final class PodHousekeeping implements Housekeeping {
  private static final Logger log = LoggerFactory.getLogger(Housekeeping.class);

  private final Runtime runtime;
  private final ContainerGc containerGc;
  private final PodManager pods;
  private final PodWorkers workers;
  private final PodCache cache;
  private final StatusManager statuses;
  private final ReasonCache reasons;
  private final VolumeManager volumes;
  private final List<Backoff> backoffs;
  private final Clock clock;
  private final Duration containerGcPeriod;

  /** Null in standalone mode. */
  private final MirrorClient mirrors;

  private final ProbeManager probes;

  /** Removes the log directories of pods the predicate says are no longer in use. */
  private final Consumer<Predicate<String>> podLogs;

  /** Told of each pod gone, so the event pipeline forgets its events' correlation. */
  private final EventRecorder events;

  private final ContainerManager cgroups;
  private final Supplier<Collection<Pod>> activePods;

  private Instant lastContainerGc = Instant.EPOCH;

  PodHousekeeping(Deps deps, ContainerGc containerGc, Duration containerGcPeriod) {
    Pods p = deps.pods();
    Forgetting f = deps.forgetting();
    this.runtime = deps.runtime();
    this.volumes = deps.volumes();
    this.cgroups = deps.cgroups();
    this.events = deps.recorder();
    this.clock = deps.clock();
    this.pods = p.pods();
    this.workers = p.workers();
    this.cache = p.cache();
    this.statuses = p.statuses();
    this.activePods = p.activePods();
    this.mirrors = p.mirrors();
    this.reasons = f.reasons();
    this.probes = f.probes();
    this.podLogs = f.podLogs();
    this.backoffs = f.backoffs();
    this.containerGc = containerGc;
    this.containerGcPeriod = containerGcPeriod;
  }

  @Override
  public void run() {
    // The runtime first, then the desired pods: housekeeping runs beside the sync loop, and a pod
    // added in between has containers only after it is desired. Read the other way round, a pod
    // added and started meanwhile was in the runtime but not yet in the desired set, and was
    // killed as an orphan (100 hollow nodes' churn, 30 Nov: 13 of 1,000 pods).
    List<ContainerSummary> listed = runtime.listContainers();
    Map<String, PodRef> runtimePods = new HashMap<>();
    for (ContainerSummary c : listed) {
      runtimePods.putIfAbsent(c.pod().uid(), c.pod());
    }
    Set<String> desired = new HashSet<>();
    pods.pods().forEach(p -> desired.add(p.getMetadata().getUid()));

    if (mirrors != null) {
      syncMirrorPods();
    }

    // Pods in the runtime that nobody wants: kill and remove them.
    runtimePods.forEach(
        (uid, ref) -> {
          if (desired.contains(uid) || workers.isWorking(uid)) {
            return;
          }
          log.info("Housekeeping: pod {} is not desired; killing and removing its containers", ref);
          workers.update(
              new UpdatePodOptions(
                  orphan(ref), WorkType.KILL, new KillPodOptions(null, true, "orphaned", false)));
        });

    // Forget what belongs to pods that are gone from both the config and the runtime.
    workers.forgetNonExistent(desired);
    probes.cleanupPods(desired);
    statuses.removeOrphanedStatuses(desired);
    for (String uid : cache.uids()) {
      if (!desired.contains(uid) && !runtimePods.containsKey(uid)) {
        cache.delete(uid);
        reasons.forgetPod(uid);
        events.forget(uid);
        for (Backoff b : backoffs) {
          b.forgetPrefix(uid + "/");
        }
      }
    }
    for (Backoff b : backoffs) {
      b.gc();
    }
    removeOrphanedPodDirs(desired, runtimePods.keySet());
    cleanupCgroups(runtimePods.keySet());
    podLogs.accept(
        uid -> desired.contains(uid) || runtimePods.containsKey(uid) || workers.isWorking(uid));

    Instant now = clock.instant();
    if (Duration.between(lastContainerGc, now).compareTo(containerGcPeriod) >= 0) {
      lastContainerGc = now;
      try {
        containerGc.garbageCollect();
      } catch (RuntimeException e) {
        log.warn("Housekeeping: container garbage collection failed: {}", e.toString());
      }
    }
  }

  @Override
  public ContainerGc containerGc() {
    return containerGc;
  }

  /**
   * Removes the cgroups of pods gone from the config, the runtime and the workers, then writes the
   * QoS tiers' shares for the active pods. The desired pods and the busy workers are read again
   * here, just before the cgroups are listed: a pod added since this run began keeps its cgroup.
   */
  private void cleanupCgroups(Set<String> inRuntime) {
    Set<String> keep = new HashSet<>(inRuntime);
    pods.pods().forEach(p -> keep.add(p.getMetadata().getUid()));
    keep.addAll(workers.working()); // after the pods: a new pod is added before its worker runs
    cgroups.cleanup(keep);
    try {
      cgroups.updateQos(activePods.get());
    } catch (CgroupException e) {
      log.warn("Housekeeping: cannot update the QoS cgroups: {}", e.getMessage());
    }
  }

  /**
   * Every static pod has a mirror pod made from its current version, and no mirror pod lacks its
   * static pod: a mirror deleted by hand comes back, an orphaned one goes.
   */
  private void syncMirrorPods() {
    for (Pod p : pods.pods()) {
      if (!Annotations.isStatic(p)) {
        continue;
      }
      var mirror = pods.mirrorOf(p);
      if (mirror.isPresent() && !MirrorClient.matches(mirror.get(), p)) {
        mirrors.delete(mirror.get()); // an older version's mirror; recreated once it is gone
      } else if (mirror.isEmpty()) {
        mirrors.create(p);
      }
    }
    for (Pod orphan : pods.orphanedMirrors()) {
      mirrors.delete(orphan);
    }
  }

  /**
   * A pod to kill an orphan with: its identity from the container labels, and no grace period of
   * its own, so each container is stopped with the grace period recorded on it.
   */
  static Pod orphan(PodRef ref) {
    return new PodBuilder()
        .withNewMetadata()
        .withUid(ref.uid())
        .withName(ref.name())
        .withNamespace(ref.namespace())
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .build();
  }

  private void removeOrphanedPodDirs(Set<String> desired, Set<String> inRuntime) {
    Path podsDir = volumes.podDir("x").getParent();
    if (!Files.isDirectory(podsDir)) {
      return;
    }
    try (Stream<Path> s = Files.list(podsDir)) {
      for (Path dir : s.toList()) {
        String uid = dir.getFileName().toString();
        if (!desired.contains(uid) && !inRuntime.contains(uid) && !workers.isWorking(uid)) {
          try {
            volumes.cleanUp(uid);
            log.info("Housekeeping: removed the directory of pod {}", uid);
          } catch (IOException e) {
            log.warn("Housekeeping: cannot remove {}: {}", dir, e.toString());
          }
        }
      }
    } catch (IOException e) {
      log.warn("Housekeeping: cannot list {}: {}", podsDir, e.toString());
    }
  }
}
