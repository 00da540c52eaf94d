package io.jkubelet.agent.gc;

import io.jkubelet.agent.runtime.PodStatus;

/**
 * Container garbage collection with the operator's policy, as upstream's {@code ContainerGC}: the
 * periodic run housekeeping drives, the removal after a container's death, and the eviction
 * manager's reclaim ({@link ContainerGarbageCollector}). Made by {@link Housekeeping#create}.
 * Implementations are thread-safe.
 */
public interface ContainerGc extends ContainerGarbageCollector {
  /**
   * Upstream's {@code GarbageCollect}: the policy; terminated pods keep what it allows. A failed
   * run is logged and reported as a {@code ContainerGCFailed} event on the Node.
   */
  void garbageCollect();

  /**
   * After a container of a pod died (upstream's {@code podContainerDeletor}): its pod keeps the
   * newest {@link ContainerGcPolicy#keptOnDeath()} dead containers of each name. Returns how many
   * went.
   */
  int onContainerDied(PodStatus status);

  /** The counts {@code /metrics} shows. */
  Stats stats();

  /**
   * The counts {@code /metrics} shows (upstream v1.20 has no container GC metric).
   *
   * @param removedContainers dead containers removed: by the periodic run, by the eviction
   *     manager's reclaim, and after a container's death (the newest of its name kept)
   * @param removedSandboxes sandboxes removed
   * @param failedRemovals removals of a container or sandbox that the engine refused or that failed
   */
  record Stats(long removedContainers, long removedSandboxes, long failedRemovals) {}
}
