package io.jkubelet.agent.streaming;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.kuberuntime.Configs;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.SandboxStatus;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Finds what a streaming request names, as upstream's {@code GetPodByName} and {@code
 * findContainer}: the pod among the node's desired pods, then its running container (or sandbox):
 * from the pod's status as the last relist or sync saw it (upstream's runtime cache), else from the
 * runtime, which lists that pod's alone (upstream lists every running pod's). The status seen is at
 * most a relist period old; a container that has exited since is refused by the engine's exec, as
 * upstream's is. A UID in the path must be the pod's, or that of its mirror pod (the API server
 * knows a static pod by its mirror). Thread-safe if the suppliers are.
 */
public final class StreamTargets {
  private final Supplier<List<Pod>> pods;
  private final Function<Pod, Optional<Pod>> mirrorOf;
  private final Function<String, Optional<PodStatus>> seen;
  private final Runtime runtime;

  /**
   * @param pods the pods this node runs (static pods by their own UID)
   * @param mirrorOf a static pod's mirror pod, if any
   * @param seen a pod's status as the last relist or sync saw it (the pod cache), by its UID; empty
   *     when not seen yet
   */
  public StreamTargets(
      Supplier<List<Pod>> pods,
      Function<Pod, Optional<Pod>> mirrorOf,
      Function<String, Optional<PodStatus>> seen,
      Runtime runtime) {
    this.pods = Objects.requireNonNull(pods);
    this.mirrorOf = Objects.requireNonNull(mirrorOf);
    this.seen = Objects.requireNonNull(seen);
    this.runtime = Objects.requireNonNull(runtime);
  }

  /** The pod by namespace and name; empty if this node does not run it. */
  Optional<Pod> pod(String namespace, String name) {
    return pods.get().stream()
        .filter(p -> p.getMetadata() != null)
        .filter(p -> name.equals(p.getMetadata().getName()))
        .filter(p -> namespace.equals(p.getMetadata().getNamespace()))
        .findFirst();
  }

  /** Whether {@code uid} (empty: any) names the pod or its mirror. */
  boolean uidMatches(Pod pod, String uid) {
    if (uid == null || uid.isEmpty() || uid.equals(pod.getMetadata().getUid())) {
      return true;
    }
    return mirrorOf.apply(pod).map(m -> uid.equals(m.getMetadata().getUid())).orElse(false);
  }

  /** The id of the pod's running container of that name (the newest), if any. */
  Optional<String> runningContainer(Pod pod, String container) {
    Optional<String> seenRunning =
        seen.apply(pod.getMetadata().getUid())
            .flatMap(s -> s.latest(container))
            .filter(ContainerStatus::running)
            .map(ContainerStatus::id);
    if (seenRunning.isPresent()) {
      return seenRunning;
    }
    return running(pod)
        .filter(c -> !c.sandbox() && c.containerName().equals(container))
        .max(Comparator.comparing(ContainerSummary::createdAt))
        .map(ContainerSummary::id);
  }

  /** The id of the pod's running sandbox, if any. */
  Optional<String> runningSandbox(Pod pod) {
    Optional<String> seenReady =
        seen.apply(pod.getMetadata().getUid())
            .flatMap(PodStatus::latestSandbox)
            .filter(SandboxStatus::ready)
            .map(SandboxStatus::id);
    if (seenReady.isPresent()) {
      return seenReady;
    }
    return running(pod)
        .filter(ContainerSummary::sandbox)
        .max(Comparator.comparing(ContainerSummary::createdAt))
        .map(ContainerSummary::id);
  }

  private java.util.stream.Stream<ContainerSummary> running(Pod pod) {
    return runtime.listContainers(Configs.ref(pod)).stream()
        .filter(c -> c.state() == ContainerState.RUNNING);
  }

  Runtime runtime() {
    return runtime;
  }
}
