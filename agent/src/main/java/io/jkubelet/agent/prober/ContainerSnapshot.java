package io.jkubelet.agent.prober;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.pod.PodPhases;
import io.jkubelet.agent.runtime.ContainerIds;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

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

  /**
   * The container as the pod's status shows it; empty until the status lists it.
   *
   * @param pod the pod's spec, for its restart policy
   * @param status the pod's status as last generated
   */
  public static Optional<ContainerSnapshot> of(Pod pod, PodStatus status, String container) {
    if (status.getContainerStatuses() == null) {
      return Optional.empty();
    }
    for (ContainerStatus cs : status.getContainerStatuses()) {
      if (!container.equals(cs.getName())) {
        continue;
      }
      var state = cs.getState();
      boolean running = state != null && state.getRunning() != null;
      boolean terminated = state != null && state.getTerminated() != null;
      boolean terminal =
          PodPhases.isTerminal(status.getPhase())
              || (terminated && "Never".equals(pod.getSpec().getRestartPolicy()));
      return Optional.of(
          new ContainerSnapshot(
              ContainerIds.runtime(cs.getContainerID()),
              status.getPodIP(),
              running ? parse(state.getRunning().getStartedAt()) : null,
              running,
              Boolean.TRUE.equals(cs.getStarted()),
              terminal));
    }
    return Optional.empty();
  }

  /** The same container, with {@code started} as given. */
  public ContainerSnapshot withStarted(boolean started) {
    return new ContainerSnapshot(containerId, podIp, startedAt, running, started, terminal);
  }

  private static Instant parse(String time) {
    if (time == null || time.isEmpty()) {
      return null;
    }
    try {
      return Instant.parse(time);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
