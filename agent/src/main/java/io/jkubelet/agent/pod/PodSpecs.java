package io.jkubelet.agent.pod;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a pod's spec says about its containers, read the one way every subsystem reads it: the app
 * and init containers (never null), a container by name as upstream's {@code findContainerInPod},
 * and whether a container should run again (upstream's {@code ShouldContainerBeRestarted}).
 * Stateless; thread-safe.
 */
public final class PodSpecs {
  private PodSpecs() {}

  /** The app containers; empty when the spec has none. */
  public static List<Container> containers(Pod pod) {
    List<Container> c = pod.getSpec().getContainers();
    return c == null ? List.of() : c;
  }

  /** The init containers, in the order they run; empty when the spec has none. */
  public static List<Container> initContainers(Pod pod) {
    List<Container> c = pod.getSpec().getInitContainers();
    return c == null ? List.of() : c;
  }

  /** The app containers, then the init containers. */
  public static List<Container> allContainers(Pod pod) {
    List<Container> all = new ArrayList<>(containers(pod));
    all.addAll(initContainers(pod));
    return all;
  }

  /** The container named {@code name}: an app container first, then an init container. */
  public static Optional<Container> find(Pod pod, String name) {
    for (Container c : allContainers(pod)) {
      if (c.getName() != null && c.getName().equals(name)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /**
   * Upstream's {@code ShouldContainerBeRestarted}: never for a pod being deleted; always for a
   * container never seen, created but not started, or in an unknown state; not while it runs;
   * otherwise as the pod's {@code restartPolicy} says.
   */
  public static boolean shouldRestart(Container c, Pod pod, PodStatus status) {
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    Optional<ContainerStatus> s = status.latest(c.getName());
    if (s.isEmpty()) {
      return true;
    }
    ContainerStatus cs = s.get();
    if (cs.running()) {
      return false;
    }
    if (cs.state() == ContainerState.UNKNOWN || cs.state() == ContainerState.CREATED) {
      return true;
    }
    String policy = pod.getSpec().getRestartPolicy();
    if ("Never".equals(policy)) {
      return false;
    }
    if ("OnFailure".equals(policy)) {
      return cs.exitCode() != 0;
    }
    return true;
  }
}
