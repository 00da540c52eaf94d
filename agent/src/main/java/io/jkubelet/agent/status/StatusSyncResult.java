package io.jkubelet.agent.status;

/**
 * How syncing one pod's status with the API server ended; decides what the sync queue does next.
 */
enum StatusSyncResult {
  /** The status was patched. */
  WRITTEN,
  /** The API already had our status. */
  IN_SYNC,
  /** The API object is gone or was replaced: never write this pod again. */
  GONE,
  /** The pod was deleted from the API server. */
  DELETED,
  /** A static pod without a mirror pod yet: try again later. */
  NO_MIRROR,
  /** The API has a terminal phase and ours is not: we never move it back. */
  KEPT_TERMINAL,
  /** A request failed: try again later. */
  RETRY
}
