package io.jkubelet.agent.gc;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.cm.ContainerManager;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.pod.MirrorClient;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.prober.ProbeManager;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.status.ReasonCache;
import io.jkubelet.agent.status.StatusManager;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.volume.VolumeManager;
import io.jkubelet.agent.workers.PodWorkers;
import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Housekeeping ({@code HandlePodCleanups} upstream): one {@link #run()} kills and removes the pods
 * no longer desired, forgets the state of pods that are gone and removes their directories, log
 * directories and cgroups, and runs container garbage collection every {@link
 * Options#containerGcPeriod()}. Made by {@link #create}; not thread-safe: the caller runs it on one
 * thread at a time.
 */
public interface Housekeeping {
  /** One round of housekeeping. */
  void run();

  /** The container garbage collector this housekeeping runs. */
  ContainerGc containerGc();

  /**
   * The pods' state housekeeping reads.
   *
   * @param activePods the pods that have not finished, for the QoS tiers' shares
   * @param sourcesReady whether every pod source has delivered its pods: before, none is deleted
   * @param mirrors the mirror pods' client; null in standalone mode
   */
  record Pods(
      PodManager pods,
      PodWorkers workers,
      PodCache cache,
      StatusManager statuses,
      Supplier<Collection<Pod>> activePods,
      BooleanSupplier sourcesReady,
      @Nullable MirrorClient mirrors) {
    public Pods {
      Records.requireNonNull(Pods.class, pods, workers, cache, statuses, activePods, sourcesReady);
    }
  }

  /**
   * The state kept per pod elsewhere, forgotten when the pod is gone.
   *
   * @param podLogs removes the log directories of pods the predicate says are no longer in use
   * @param backoffs forgotten per pod ({@code <uid>/} keys) and trimmed every run
   */
  record Forgetting(
      ReasonCache reasons,
      ProbeManager probes,
      Consumer<Predicate<String>> podLogs,
      List<Backoff> backoffs) {
    public Forgetting {
      Records.requireNonNull(Forgetting.class, reasons, probes, podLogs, backoffs);
      backoffs = List.copyOf(backoffs);
    }
  }

  /**
   * The collaborators.
   *
   * @param recorder container GC's events, and told of each pod gone so the event pipeline forgets
   *     its events' correlation
   */
  record Deps(
      Runtime runtime,
      @Nullable RuntimeManager manager,
      VolumeManager volumes,
      ContainerManager cgroups,
      Pods pods,
      Forgetting forgetting,
      EventRecorder recorder,
      Clock clock) {
    public Deps {
      Records.requireNonNull(
          Deps.class, runtime, volumes, cgroups, pods, forgetting, recorder, clock);
    }
  }

  /**
   * The settings.
   *
   * @param containerGcPeriod how often container GC runs (upstream's {@code ContainerGCPeriod})
   * @param containerGcPolicy the operator's container GC policy
   * @param node the Node container GC's events are about
   */
  record Options(
      Duration containerGcPeriod, ContainerGcPolicy containerGcPolicy, ObjectReference node) {
    public Options {
      Records.requireNonNull(Options.class, containerGcPeriod, containerGcPolicy, node);
      if (containerGcPeriod.isNegative()) {
        throw new IllegalArgumentException("invalid container GC period: " + containerGcPeriod);
      }
    }
  }

  /**
   * Whether a pod being deleted in the API is finished here (upstream's {@code
   * PodResourcesAreReclaimed}): its worker is not running it, the runtime has nothing left of it,
   * and its volumes are torn down (which this tears down when that is all that is left; a failure
   * is the volume manager's {@code teardownFailure}). Thread-safe.
   */
  static Predicate<Pod> reclaimed(PodWorkers workers, Runtime runtime, VolumeManager volumes) {
    return new Reclaimed(workers, runtime, volumes);
  }

  /** Housekeeping and its container garbage collector; builds only. */
  static Housekeeping create(Deps deps, Options options) {
    Pods p = deps.pods();
    ContainerGc containerGc =
        new RealContainerGc(
            new RealContainerGc.Deps(
                deps.runtime(),
                deps.manager(),
                options.containerGcPolicy(),
                PodStates.of(p.pods(), p.statuses(), p.workers(), p.sourcesReady()),
                deps.clock(),
                deps.recorder(),
                options.node()));
    return new PodHousekeeping(deps, containerGc, options.containerGcPeriod());
  }
}
