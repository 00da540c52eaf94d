package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.pod.PodSpecs;
import io.jkubelet.agent.prober.ProbeType;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.SandboxStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Computes {@link PodActions} from a pod and its runtime status: a pure function, ported from
 * upstream's {@code computePodActions} in {@code kuberuntime_manager.go}.
 */
public final class Actions {
  private Actions() {}

  /** The result of looking for the next init container to run. */
  record InitProgress(ContainerStatus lastFailed, Container next, boolean done) {}

  /** Which probe a running container failed, by its runtime id: liveness or startup. */
  @FunctionalInterface
  public interface FailedProbes {
    Optional<ProbeType> of(String containerId);

    /** No probes, or none failed. */
    FailedProbes NONE = id -> Optional.empty();
  }

  /**
   * @param failedProbes which probe, if any, a running container failed: it is killed and, unless
   *     the restart policy is Never, restarted
   */
  public static PodActions compute(Pod pod, PodStatus status, FailedProbes failedProbes) {
    SandboxDecision sb = sandboxChanged(pod, status);
    if (sb.create()) {
      return withNewSandbox(pod, status, sb);
    }
    InitProgress init = nextInitContainer(pod, status);
    if (!init.done()) {
      return forInitContainer(pod, sb, init);
    }
    return forAppContainers(pod, status, sb, failedProbes);
  }

  /** A new sandbox: the first init container, or every app container that should run. */
  private static PodActions withNewSandbox(Pod pod, PodStatus status, SandboxDecision sb) {
    List<Container> inits = PodSpecs.initContainers(pod);
    List<Container> apps = pod.getSpec().getContainers();
    List<Integer> toStart = new ArrayList<>();
    if (!restartOnFailure(pod) && sb.attempt() != 0 && !status.containers().isEmpty()) {
      // The pod is done: do not create a sandbox just to find nothing to run in it.
      return new PodActions(true, false, sb.id(), sb.attempt(), null, toStart, Map.of());
    }
    if (!inits.isEmpty()) {
      return new PodActions(true, true, sb.id(), sb.attempt(), inits.get(0), toStart, Map.of());
    }
    for (int i = 0; i < apps.size(); i++) {
      if ("OnFailure".equals(pod.getSpec().getRestartPolicy()) && succeeded(apps.get(i), status)) {
        continue;
      }
      toStart.add(i);
    }
    return new PodActions(true, true, sb.id(), sb.attempt(), null, toStart, Map.of());
  }

  /** Init containers still running or to run: the next one, or kill the pod when one failed. */
  private static PodActions forInitContainer(Pod pod, SandboxDecision sb, InitProgress init) {
    Map<String, PodActions.KillInfo> toKill = new HashMap<>();
    boolean killPod = false;
    Container next = null;
    if (init.next() != null) {
      boolean failed = init.lastFailed() != null;
      if (failed && !restartOnFailure(pod)) {
        killPod = true;
      } else {
        if (failed && init.lastFailed().state() == ContainerState.UNKNOWN) {
          toKill.put(
              init.lastFailed().id(),
              new PodActions.KillInfo(
                  init.next().getName(),
                  "Init container is in unknown state, try killing it before restart"));
        }
        next = init.next();
      }
    }
    return new PodActions(killPod, false, sb.id(), sb.attempt(), next, List.of(), toKill);
  }

  /**
   * The app containers: start what should run and does not; kill (and restart) what changed its
   * definition or failed a probe; kill the pod when nothing is left to run.
   */
  private static PodActions forAppContainers(
      Pod pod, PodStatus status, SandboxDecision sb, FailedProbes failedProbes) {
    List<Container> apps = pod.getSpec().getContainers();
    List<Integer> toStart = new ArrayList<>();
    Map<String, PodActions.KillInfo> toKill = new HashMap<>();
    int keep = 0;
    for (int i = 0; i < apps.size(); i++) {
      Container c = apps.get(i);
      Optional<ContainerStatus> cs = status.latest(c.getName());
      if (cs.isEmpty() || !cs.get().running()) {
        if (PodSpecs.shouldRestart(c, pod, status)) {
          toStart.add(i);
          if (cs.isPresent() && cs.get().state() == ContainerState.UNKNOWN) {
            toKill.put(
                cs.get().id(),
                new PodActions.KillInfo(
                    c.getName(), "Container is in unknown state, try killing it before restart"));
          }
        }
        continue;
      }
      String message;
      boolean restart = restartOnFailure(pod);
      Optional<ProbeType> failedProbe;
      if (!ContainerHash.of(c).equals(cs.get().hash())) {
        message = "Container " + c.getName() + " definition changed";
        restart = true;
      } else if ((failedProbe = failedProbes.of(cs.get().id())).isPresent()) {
        message = "Container " + c.getName() + " failed " + failedProbe.get().label() + " probe";
      } else {
        keep++;
        continue;
      }
      if (restart) {
        message += ", will be restarted";
        toStart.add(i);
      }
      toKill.put(cs.get().id(), new PodActions.KillInfo(c.getName(), message));
    }
    boolean killPod = keep == 0 && toStart.isEmpty();
    return new PodActions(killPod, false, sb.id(), sb.attempt(), null, toStart, toKill);
  }

  record SandboxDecision(boolean create, int attempt, String id) {}

  static SandboxDecision sandboxChanged(Pod pod, PodStatus status) {
    if (status.sandboxes().isEmpty()) {
      return new SandboxDecision(true, 0, "");
    }
    SandboxStatus latest = status.sandboxes().get(0);
    long ready = status.sandboxes().stream().filter(SandboxStatus::ready).count();
    if (ready > 1 || !latest.ready()) {
      return new SandboxDecision(true, latest.attempt() + 1, latest.id());
    }
    boolean hostNetwork = Boolean.TRUE.equals(pod.getSpec().getHostNetwork());
    boolean sandboxHostNetwork = "true".equals(latest.labels().get(Labels.HOST_NETWORK));
    if (hostNetwork != sandboxHostNetwork) {
      return new SandboxDecision(true, latest.attempt() + 1, "");
    }
    if (!hostNetwork && latest.ip().isEmpty()) {
      return new SandboxDecision(true, latest.attempt() + 1, latest.id());
    }
    return new SandboxDecision(false, latest.attempt(), latest.id());
  }

  static InitProgress nextInitContainer(Pod pod, PodStatus status) {
    List<Container> inits = PodSpecs.initContainers(pod);
    if (inits.isEmpty()) {
      return new InitProgress(null, null, true);
    }
    for (Container c : pod.getSpec().getContainers()) {
      if (status.latest(c.getName()).map(ContainerStatus::running).orElse(false)) {
        return new InitProgress(null, null, true);
      }
    }
    for (int i = inits.size() - 1; i >= 0; i--) {
      Optional<ContainerStatus> s = status.latest(inits.get(i).getName());
      if (s.isPresent() && initFailed(s.get())) {
        return new InitProgress(s.get(), inits.get(i), false);
      }
    }
    for (int i = inits.size() - 1; i >= 0; i--) {
      Optional<ContainerStatus> s = status.latest(inits.get(i).getName());
      if (s.isEmpty()) {
        continue;
      }
      if (s.get().running()) {
        return new InitProgress(null, null, false);
      }
      if (s.get().exited()) {
        if (i == inits.size() - 1) {
          return new InitProgress(null, null, true);
        }
        return new InitProgress(null, inits.get(i + 1), false);
      }
    }
    return new InitProgress(null, inits.get(0), false);
  }

  static boolean initFailed(ContainerStatus s) {
    return (s.exited() && s.exitCode() != 0) || s.state() == ContainerState.UNKNOWN;
  }

  static boolean restartOnFailure(Pod pod) {
    return !"Never".equals(pod.getSpec().getRestartPolicy());
  }

  static boolean succeeded(Container c, PodStatus status) {
    return status.latest(c.getName()).map(s -> s.exited() && s.exitCode() == 0).orElse(false);
  }
}
