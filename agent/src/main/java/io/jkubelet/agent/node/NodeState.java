package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.Node;
import java.time.Instant;

/**
 * What the node-status thread knows of this node's Node, shared by the registration, the status
 * sync and the Lease renewal.
 *
 * <p>Threading: the plain fields are confined to the thread that runs the sync (the scheduler's, or
 * a test's when the manager is not started); the volatile ones are also read by {@code healthy()}
 * and {@code lastReported()} on any thread.
 */
final class NodeState {
  /** Whether the Node exists in the API server as far as this agent knows. */
  boolean registered;

  /** Whether the registration events are still to be recorded with the next successful write. */
  boolean registrationEventsPending = true;

  /** When the status was last written, or null. */
  Instant lastReportTime;

  volatile String nodeUid;
  volatile Node lastReported;
  volatile Instant lastStatusOk;
  volatile Instant lastLeaseOk;
  volatile boolean everRegistered;
  volatile String lastError = "none";
}
