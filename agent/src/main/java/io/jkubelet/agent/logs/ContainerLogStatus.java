package io.jkubelet.agent.logs;

import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.runtime.ContainerIds;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which container instance a log request reads, from the pod's status, with upstream's messages
 * ({@code validateContainerLogStatus} in {@code kubelet_pods.go}).
 */
public final class ContainerLogStatus {
  private ContainerLogStatus() {}

  /** The instance to read, or why there is none (a 400 with this message). */
  public sealed interface Result {
    record Found(String containerId) implements Result {}

    record NotAvailable(String message) implements Result {}
  }

  public static Result validate(
      String podName, PodStatus status, String container, boolean previous) {
    Optional<ContainerStatus> found = find(status, container);
    if (found.isEmpty()) {
      return no("container \"%s\" in pod \"%s\" is not available", container, podName);
    }
    ContainerStatus cs = found.get();
    ContainerState state = cs.getState() == null ? new ContainerState() : cs.getState();
    ContainerStateTerminated last =
        cs.getLastState() == null ? null : cs.getLastState().getTerminated();
    if (previous) {
      if (last == null || empty(last.getContainerID())) {
        return no(
            "previous terminated container \"%s\" in pod \"%s\" not found", container, podName);
      }
      return found(last.getContainerID());
    }
    if (state.getRunning() != null) {
      return found(cs.getContainerID());
    }
    if (state.getTerminated() != null) {
      if (!empty(state.getTerminated().getContainerID())) {
        return found(state.getTerminated().getContainerID());
      }
      if (last != null && !empty(last.getContainerID())) {
        return found(last.getContainerID());
      }
      return no("container \"%s\" in pod \"%s\" is terminated", container, podName);
    }
    if (last != null) {
      return empty(last.getContainerID())
          ? no("container \"%s\" in pod \"%s\" is terminated", container, podName)
          : found(last.getContainerID());
    }
    if (state.getWaiting() != null) {
      String reason = state.getWaiting().getReason();
      String why =
          switch (reason == null ? "" : reason) {
            case "ErrImagePull" -> "image can't be pulled";
            case "ImagePullBackOff" -> "trying and failing to pull image";
            default -> reason;
          };
      return no("container \"%s\" in pod \"%s\" is waiting to start: %s", container, podName, why);
    }
    return no(
        "container \"%s\" in pod \"%s\" is waiting to start - no logs yet", container, podName);
  }

  private static Optional<ContainerStatus> find(PodStatus status, String name) {
    List<ContainerStatus> all = new ArrayList<>();
    if (status != null) {
      if (status.getContainerStatuses() != null) {
        all.addAll(status.getContainerStatuses());
      }
      if (status.getInitContainerStatuses() != null) {
        all.addAll(status.getInitContainerStatuses());
      }
    }
    return all.stream().filter(c -> name.equals(c.getName())).findFirst();
  }

  private static Result found(String containerId) {
    return new Result.Found(ContainerIds.runtime(containerId));
  }

  private static Result no(String format, Object... args) {
    return new Result.NotAvailable(String.format(format, args));
  }

  private static boolean empty(String s) {
    return s == null || s.isEmpty();
  }
}
