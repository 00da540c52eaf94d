package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.pod.PodPhases;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * The desired pods that have not finished, as upstream's {@code GetActivePods}: those whose last
 * generated status is not Succeeded or Failed. The QoS cgroups' shares are computed from them.
 * Thread-safe as the pod and status managers are.
 */
public final class ActivePods implements Supplier<Collection<Pod>> {
  private final PodManager pods;
  private final StatusManager statuses;

  public ActivePods(PodManager pods, StatusManager statuses) {
    this.pods = pods;
    this.statuses = statuses;
  }

  @Override
  public List<Pod> get() {
    return pods.pods().stream()
        .filter(
            p ->
                statuses
                    .getPodStatus(p.getMetadata().getUid())
                    .map(s -> !PodPhases.isTerminal(s.getPhase()))
                    .orElse(true))
        .toList();
  }
}
