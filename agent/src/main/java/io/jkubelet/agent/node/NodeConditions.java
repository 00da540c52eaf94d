package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.util.Lifecycle.Health;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The four conditions this agent owns on its Node (upstream's {@code MemoryPressureCondition},
 * {@code DiskPressureCondition}, {@code PIDPressureCondition} and {@code ReadyCondition} setters),
 * with upstream's reasons, messages and events, and their transition times. Pure functions.
 */
final class NodeConditions {
  private NodeConditions() {}

  /** The condition the setters want, before transition times are worked out. */
  record Want(String type, String status, String reason, String message, String event) {}

  /** The four conditions this agent owns, as it wants them now. */
  static List<Want> wants(Health readiness, Set<String> pressure) {
    Want ready =
        readiness.ok()
            ? new Want(
                NodeStatuses.READY,
                "True",
                "KubeletReady",
                "kubelet is posting ready status",
                Reasons.NODE_READY)
            : new Want(
                NodeStatuses.READY,
                "False",
                "KubeletNotReady",
                readiness.message(),
                Reasons.NODE_NOT_READY);
    return List.of(
        pressure.contains(NodeStatuses.MEMORY_PRESSURE)
            ? new Want(
                NodeStatuses.MEMORY_PRESSURE,
                "True",
                "KubeletHasInsufficientMemory",
                "kubelet has insufficient memory available",
                Reasons.NODE_HAS_INSUFFICIENT_MEMORY)
            : new Want(
                NodeStatuses.MEMORY_PRESSURE,
                "False",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
                Reasons.NODE_HAS_SUFFICIENT_MEMORY),
        pressure.contains(NodeStatuses.DISK_PRESSURE)
            ? new Want(
                NodeStatuses.DISK_PRESSURE,
                "True",
                "KubeletHasDiskPressure",
                "kubelet has disk pressure",
                Reasons.NODE_HAS_DISK_PRESSURE)
            : new Want(
                NodeStatuses.DISK_PRESSURE,
                "False",
                "KubeletHasNoDiskPressure",
                "kubelet has no disk pressure",
                Reasons.NODE_HAS_NO_DISK_PRESSURE),
        pressure.contains(NodeStatuses.PID_PRESSURE)
            ? new Want(
                NodeStatuses.PID_PRESSURE,
                "True",
                "KubeletHasInsufficientPID",
                "kubelet has insufficient PID available",
                Reasons.NODE_HAS_INSUFFICIENT_PID)
            : new Want(
                NodeStatuses.PID_PRESSURE,
                "False",
                "KubeletHasSufficientPID",
                "kubelet has sufficient PID available",
                Reasons.NODE_HAS_SUFFICIENT_PID),
        ready);
  }

  /**
   * The wanted conditions at {@code now}: each keeps its {@code lastTransitionTime} from {@code
   * previous} while its status stays the same; the event of each one that changed is added to
   * {@code events}.
   */
  static List<NodeCondition> conditions(
      List<Want> wants, List<NodeCondition> previous, Instant now, List<String> events) {
    String t = NodeStatuses.time(now);
    List<NodeCondition> conditions = new ArrayList<>();
    for (Want w : wants) {
      NodeCondition old = NodeStatuses.find(previous, w.type());
      boolean transition = old == null || !w.status().equals(old.getStatus());
      conditions.add(
          new NodeConditionBuilder()
              .withType(w.type())
              .withStatus(w.status())
              .withReason(w.reason())
              .withMessage(w.message())
              .withLastHeartbeatTime(t)
              .withLastTransitionTime(transition ? t : old.getLastTransitionTime())
              .build());
      if (transition) {
        events.add(w.event());
      }
    }
    return conditions;
  }
}
