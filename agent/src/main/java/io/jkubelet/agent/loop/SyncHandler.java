package io.jkubelet.agent.loop;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * What the sync loop dispatches to, as upstream's {@code SyncHandler}. Implementations hand work to
 * the pod workers and return at once: the loop never waits on a pod.
 */
public interface SyncHandler {
  void handlePodAdditions(List<Pod> pods);

  void handlePodUpdates(List<Pod> pods);

  void handlePodRemoves(List<Pod> pods);

  void handlePodReconcile(List<Pod> pods);

  void handlePodSyncs(List<Pod> pods);

  /** A container of the pod died: remove its older dead siblings now rather than at the next GC. */
  void cleanUpContainersInPod(String podUid, String containerId);

  /** Housekeeping: kill what is not desired, collect dead containers, forget old workers. */
  void handlePodCleanups();
}
