package io.jkubelet.agent.workers;

/** Why a pod is synced, as upstream's {@code SyncPodType}. */
public enum WorkType {
  /** The pod was just added. */
  CREATE,
  /** Its spec changed. */
  UPDATE,
  /** A periodic resync, a retry, or a container change the PLEG saw. */
  SYNC,
  /** Stop every container of the pod. */
  KILL
}
