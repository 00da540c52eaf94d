package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The four pod conditions the kubelet owns, as upstream's {@code status.Generate*Condition}:
 * Initialized, Ready, ContainersReady and PodScheduled, each with its last transition time (kept
 * from the previous status while the condition's status stays the same). Stateless; thread-safe.
 */
final class PodConditions {
  private PodConditions() {}

  /**
   * @param previous the status generated last time, for transition times, or null
   * @param now the transition time of a condition that changed
   */
  static List<PodCondition> of(
      List<ContainerStatus> inits,
      List<ContainerStatus> apps,
      String phase,
      PodStatus previous,
      Instant now) {
    List<PodCondition> out = new ArrayList<>();
    out.add(initialized(inits, phase));
    PodCondition containersReady = containersReady(apps, phase);
    out.add(new PodConditionBuilder(containersReady).withType("Ready").build());
    out.add(containersReady);
    out.add(condition("PodScheduled", "True", null, null));
    setTransitionTimes(out, previous, now);
    return out;
  }

  private static PodCondition initialized(List<ContainerStatus> inits, String phase) {
    List<String> incomplete = new ArrayList<>();
    for (var st : inits) {
      var t = st.getState() == null ? null : st.getState().getTerminated();
      if (t == null || t.getExitCode() != 0) {
        incomplete.add(st.getName());
      }
    }
    if (incomplete.isEmpty() || PodPhase.SUCCEEDED.equals(phase)) {
      return condition("Initialized", "True", null, null);
    }
    return condition(
        "Initialized",
        "False",
        "ContainersNotInitialized",
        "containers with incomplete status: " + list(incomplete));
  }

  private static PodCondition containersReady(List<ContainerStatus> apps, String phase) {
    List<String> unready = new ArrayList<>();
    for (var st : apps) {
      if (!Boolean.TRUE.equals(st.getReady())) {
        unready.add(st.getName());
      }
    }
    if (PodPhase.SUCCEEDED.equals(phase)) {
      return condition("ContainersReady", "False", "PodCompleted", null);
    }
    if (!unready.isEmpty()) {
      return condition(
          "ContainersReady",
          "False",
          "ContainersNotReady",
          "containers with unready status: " + list(unready));
    }
    return condition("ContainersReady", "True", null, null);
  }

  /** A condition keeps its previous transition time while its status stays; else it is now. */
  private static void setTransitionTimes(
      List<PodCondition> conditions, PodStatus previous, Instant now) {
    Map<String, PodCondition> before = new HashMap<>();
    if (previous != null && previous.getConditions() != null) {
      previous.getConditions().forEach(c -> before.put(c.getType(), c));
    }
    for (PodCondition c : conditions) {
      PodCondition p = before.get(c.getType());
      c.setLastProbeTime(null);
      c.setLastTransitionTime(
          p != null
                  && Objects.equals(p.getStatus(), c.getStatus())
                  && p.getLastTransitionTime() != null
              ? p.getLastTransitionTime()
              : StatusGenerator.time(now));
    }
  }

  private static PodCondition condition(String type, String status, String reason, String message) {
    return new PodConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .build();
  }

  private static String list(List<String> names) {
    return "[" + String.join(" ", names) + "]";
  }
}
