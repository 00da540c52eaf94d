package io.jkubelet.agent.prober;

import java.time.Instant;

/**
 * What a worker needs to know of its container before an attempt, taken from the pod's API status
 * as upstream's worker reads it.
 *
 * @param containerId the runtime id, or null when the container has none yet
 * @param podIp the pod IP, the default host of HTTP and TCP probes
 * @param startedAt when the running container started, or null when it is not running
 * @param running whether the container runs
 * @param started whether the status says the container started (its startup probe succeeded, or it
 *     has none): liveness and readiness wait for it, and a startup probe stops
 * @param terminal whether the container stopped for good (pod succeeded or failed, or terminated
 *     under {@code restartPolicy: Never}): the worker then stops
 */
public record ContainerSnapshot(
    String containerId,
    String podIp,
    Instant startedAt,
    boolean running,
    boolean started,
    boolean terminal) {

  /** A running container that started. */
  public static ContainerSnapshot running(String containerId, String podIp, Instant startedAt) {
    return new ContainerSnapshot(containerId, podIp, startedAt, true, true, false);
  }

  /** The same container, with {@code started} as given. */
  public ContainerSnapshot withStarted(boolean started) {
    return new ContainerSnapshot(containerId, podIp, startedAt, running, started, terminal);
  }
}
