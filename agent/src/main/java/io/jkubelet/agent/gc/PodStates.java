package io.jkubelet.agent.gc;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.pod.PodPhases;
import io.jkubelet.agent.status.StatusManager;
import io.jkubelet.agent.workers.PodWorkers;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * What container GC asks about a pod (upstream's {@code podStateProvider} and {@code
 * SourcesReadyProvider}), by its UID. Implementations are thread-safe.
 */
interface PodStates {
  /**
   * Upstream's {@code IsPodDeleted}: not desired any more, evicted, or being deleted with no
   * container running.
   */
  boolean deleted(String uid);

  /**
   * Upstream's {@code IsPodTerminated}: not desired any more, Succeeded or Failed, or being deleted
   * with no container running.
   */
  boolean terminated(String uid);

  /** Whether a pod worker is syncing or killing the pod now: its containers are left alone. */
  boolean busy(String uid);

  /** Whether every pod source has delivered its pods: before that, no pod counts as deleted. */
  boolean allSourcesReady();

  /** The states from the pod manager, the status manager and the pod workers. */
  static PodStates of(
      PodManager pods, StatusManager statuses, PodWorkers workers, BooleanSupplier sourcesReady) {
    return new PodStates() {
      @Override
      public boolean deleted(String uid) {
        return gone(uid, PodStates::evicted);
      }

      @Override
      public boolean terminated(String uid) {
        return gone(uid, status -> PodPhases.isTerminal(status.getPhase()));
      }

      /** No longer in the pod manager, {@code finished}, or deleted with nothing running. */
      private boolean gone(String uid, Predicate<PodStatus> finished) {
        Optional<Pod> pod = pods.byUid(uid);
        if (pod.isEmpty()) {
          return true;
        }
        PodStatus status = status(pod.get());
        return finished.test(status)
            || (pod.get().getMetadata().getDeletionTimestamp() != null && notRunning(status));
      }

      @Override
      public boolean busy(String uid) {
        return workers.isWorking(uid);
      }

      @Override
      public boolean allSourcesReady() {
        return sourcesReady.getAsBoolean();
      }

      private PodStatus status(Pod pod) {
        return statuses
            .getPodStatus(pod.getMetadata().getUid())
            .orElseGet(() -> pod.getStatus() == null ? new PodStatus() : pod.getStatus());
      }
    };
  }

  /** Upstream's {@code PodIsEvicted}: Failed with reason Evicted. */
  private static boolean evicted(PodStatus status) {
    return PodPhases.FAILED.equals(status.getPhase()) && "Evicted".equals(status.getReason());
  }

  /** Upstream's {@code notRunning}: every container terminated or waiting. */
  private static boolean notRunning(PodStatus status) {
    List<ContainerStatus> containers =
        status.getContainerStatuses() == null ? List.of() : status.getContainerStatuses();
    return containers.stream()
        .allMatch(
            c ->
                c.getState() != null
                    && (c.getState().getTerminated() != null || c.getState().getWaiting() != null));
  }
}
