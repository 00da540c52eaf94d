package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import java.util.List;
import java.util.Map;

/**
 * What a sync must do to a pod, as upstream's {@code podActions}.
 *
 * @param killPod stop every container and the sandbox first
 * @param createSandbox create a new sandbox (implies killPod)
 * @param sandboxId the sandbox to use when not creating one, or the one being replaced
 * @param attempt the attempt number of the sandbox to create
 * @param nextInitContainer the init container to start, or null
 * @param containersToStart indexes into {@code spec.containers} to start
 * @param containersToKill running containers to stop (id → why)
 */
public record PodActions(
    boolean killPod,
    boolean createSandbox,
    String sandboxId,
    int attempt,
    Container nextInitContainer,
    List<Integer> containersToStart,
    Map<String, KillInfo> containersToKill) {

  public PodActions {
    containersToStart = List.copyOf(containersToStart);
    containersToKill = Map.copyOf(containersToKill);
  }

  /** A container to stop: its spec name, and the message of the {@code Killing} event. */
  public record KillInfo(String name, String message) {}

  /** Whether the sync has nothing to do. */
  public boolean isNoop() {
    return !killPod
        && !createSandbox
        && nextInitContainer == null
        && containersToStart.isEmpty()
        && containersToKill.isEmpty();
  }
}
