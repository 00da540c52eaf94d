package io.jkubelet.agent.prober;

import java.time.Instant;

/**
 * What a worker needs to know of its container before an attempt, taken from the pod status.
 *
 * @param containerId the runtime id, or null when the container has none yet
 * @param podIp the pod IP, the default host of HTTP and TCP probes
 * @param startedAt when the running container started, or null when it is not running
 * @param running whether the container runs
 * @param terminal whether the container stopped for good (pod succeeded or failed, or terminated
 *     under {@code restartPolicy: Never}): the worker then stops
 */
public record ContainerSnapshot(
    String containerId, String podIp, Instant startedAt, boolean running, boolean terminal) {

  public static ContainerSnapshot running(String containerId, String podIp, Instant startedAt) {
    return new ContainerSnapshot(containerId, podIp, startedAt, true, false);
  }
}
