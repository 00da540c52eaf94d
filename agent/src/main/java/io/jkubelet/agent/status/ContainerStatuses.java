package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStateTerminatedBuilder;
import io.fabric8.kubernetes.api.model.ContainerStateWaitingBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.pod.PodSpecs;
import io.jkubelet.agent.pod.WaitingReasons;
import io.jkubelet.agent.prober.ContainerHealth;
import io.jkubelet.agent.runtime.ContainerIds;
import io.jkubelet.agent.runtime.PodStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The API statuses of a pod's init or app containers, as upstream's {@code
 * convertToAPIContainerStatuses} in {@code kubelet_pods.go}: state, lastState, restartCount, image,
 * and the ready and started flags of running containers. The newest runtime container of a name
 * gives its state, the one before it its lastState; a terminated container that has since been
 * garbage collected keeps its previous status; a container that failed to start or waits for a
 * restart shows the reason from the {@link ReasonCache}.
 *
 * <p>A pure function of its inputs; thread-safe.
 */
final class ContainerStatuses {
  private ContainerStatuses() {}

  /**
   * The statuses of the pod's init containers or of its app containers.
   *
   * @param last the pod's status generated last time, or null
   * @param init whether these are the init containers (one that exited 0 is done)
   */
  static List<ContainerStatus> of(
      Pod pod,
      PodStatus runtime,
      ReasonCache reasons,
      io.fabric8.kubernetes.api.model.PodStatus last,
      boolean init,
      ContainerHealth health) {
    List<Container> containers =
        init ? PodSpecs.initContainers(pod) : pod.getSpec().getContainers();
    List<ContainerStatus> previous =
        last == null ? null : init ? last.getInitContainerStatuses() : last.getContainerStatuses();
    Map<String, ContainerStatus> statuses = defaults(pod, previous, containers);
    applyRuntime(statuses, runtime, health);
    statuses
        .values()
        .forEach(
            st -> {
              if (st.getLastState() == null) {
                st.setLastState(new ContainerState());
              }
            });
    applyWaitingReasons(statuses, pod, runtime, reasons, containers, init);
    if (init) {
      // As upstream's prober manager: an init container is ready once it has exited 0.
      statuses
          .values()
          .forEach(
              st -> {
                var t = st.getState() == null ? null : st.getState().getTerminated();
                st.setReady(t != null && t.getExitCode() != null && t.getExitCode() == 0);
              });
    }
    return new ArrayList<>(statuses.values());
  }

  /** Each container waiting to be created, or as it was last time, by name in spec order. */
  private static Map<String, ContainerStatus> defaults(
      Pod pod, List<ContainerStatus> previous, List<Container> containers) {
    Map<String, ContainerStatus> old = new HashMap<>();
    if (previous != null) {
      previous.forEach(p -> old.put(p.getName(), p));
    }
    String defaultWaiting =
        PodSpecs.initContainers(pod).isEmpty()
            ? WaitingReasons.CONTAINER_CREATING
            : WaitingReasons.POD_INITIALIZING;
    Map<String, ContainerStatus> statuses = new LinkedHashMap<>();
    for (Container c : containers) {
      ContainerStatus st = new ContainerStatus();
      st.setName(c.getName());
      st.setImage(c.getImage());
      st.setImageID("");
      st.setRestartCount(0);
      st.setReady(false);
      st.setStarted(false);
      st.setState(waiting(defaultWaiting, null));
      ContainerStatus o = old.get(c.getName());
      if (o != null) {
        if (o.getState() != null && o.getState().getTerminated() != null) {
          st = new ContainerStatusBuilder(o).build(); // it may have been collected since
        } else {
          st.setRestartCount(o.getRestartCount());
          st.setLastState(o.getLastState());
        }
      }
      statuses.put(c.getName(), st);
    }
    return statuses;
  }

  /** The newest runtime container of each name gives the state, the one before the lastState. */
  private static void applyRuntime(
      Map<String, ContainerStatus> statuses, PodStatus runtime, ContainerHealth health) {
    Map<String, Integer> seen = new HashMap<>();
    for (var cs : runtime.containers()) { // newest first
      ContainerStatus st = statuses.get(cs.name());
      int n = seen.getOrDefault(cs.name(), 0);
      if (st == null || n >= 2) {
        continue;
      }
      if (n == 0) {
        ContainerStatus fresh = convert(cs);
        if (fresh.getState().getRunning() != null) {
          fresh.setReady(health.ready(cs.name(), cs.id()));
          fresh.setStarted(health.started(cs.name(), cs.id()));
        }
        // Keep the previous lastState until a second container shows one.
        fresh.setLastState(st.getLastState());
        statuses.put(cs.name(), fresh);
      } else {
        st.setLastState(convert(cs).getState());
      }
      seen.put(cs.name(), n + 1);
    }
  }

  /** Containers that failed to start, or will be restarted, are waiting. */
  private static void applyWaitingReasons(
      Map<String, ContainerStatus> statuses,
      Pod pod,
      PodStatus runtime,
      ReasonCache reasons,
      List<Container> containers,
      boolean init) {
    for (Container c : containers) {
      if (init) {
        var s = runtime.latest(c.getName());
        if (s.isPresent() && s.get().exited() && s.get().exitCode() == 0) {
          continue;
        }
      }
      if (!PodSpecs.shouldRestart(c, pod, runtime)) {
        continue;
      }
      var reason = reasons.get(pod.getMetadata().getUid(), c.getName());
      if (reason.isEmpty()) {
        continue;
      }
      ContainerStatus st = statuses.get(c.getName());
      if (st.getState() != null && st.getState().getTerminated() != null) {
        st.setLastState(st.getState());
      }
      st.setState(waiting(reason.get().reason(), reason.get().message()));
      st.setReady(false);
      st.setStarted(false);
    }
  }

  private static ContainerStatus convert(io.jkubelet.agent.runtime.ContainerStatus cs) {
    ContainerStatus st = new ContainerStatus();
    st.setName(cs.name());
    st.setImage(cs.image());
    st.setImageID(cs.imageRef());
    st.setContainerID(ContainerIds.api(cs.id()));
    st.setRestartCount(cs.restartCount());
    st.setReady(false);
    st.setStarted(false);
    ContainerStateBuilder state = new ContainerStateBuilder();
    switch (cs.state()) {
      case RUNNING ->
          state.withNewRunning().withStartedAt(StatusGenerator.time(cs.startedAt())).endRunning();
      case CREATED, EXITED ->
          state.withTerminated(
              new ContainerStateTerminatedBuilder()
                  .withExitCode(cs.exitCode())
                  .withReason(emptyToNull(cs.reason()))
                  .withMessage(emptyToNull(cs.message()))
                  .withStartedAt(StatusGenerator.time(cs.startedAt()))
                  .withFinishedAt(StatusGenerator.time(cs.finishedAt()))
                  .withContainerID(ContainerIds.api(cs.id()))
                  .build());
      case UNKNOWN -> state.withWaiting(new ContainerStateWaitingBuilder().build());
    }
    st.setState(state.build());
    return st;
  }

  private static ContainerState waiting(String reason, String message) {
    return new ContainerStateBuilder()
        .withWaiting(
            new ContainerStateWaitingBuilder().withReason(reason).withMessage(message).build())
        .build();
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
