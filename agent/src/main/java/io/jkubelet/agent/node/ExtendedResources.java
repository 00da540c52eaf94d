package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Extended resources ({@code example.com/dongle}): resources that others add to the Node's
 * capacity, a device plugin or an administrator patching {@code status.capacity} by hand, as the
 * scheduler's preemption specs do. The kubelet owns none of them but carries each into allocatable,
 * and drops it from allocatable once it leaves the capacity, as upstream's {@code MachineInfo}
 * setter does. The scheduler reads allocatable only, so without this a pod asking for one is never
 * scheduled.
 */
final class ExtendedResources {
  private ExtendedResources() {}

  /**
   * Upstream's {@code IsExtendedResourceName}: a name with a prefix outside {@code kubernetes.io/}
   * and not a quota's {@code requests.} name.
   */
  static boolean isExtended(String name) {
    return name.contains("/") && !name.contains("kubernetes.io/") && !name.startsWith("requests.");
  }

  /**
   * Adds to {@code desired}'s capacity and allocatable every extended resource in {@code
   * onServer}'s capacity (null: none).
   */
  static void carry(NodeStatus onServer, NodeStatus desired) {
    if (onServer == null || onServer.getCapacity() == null) {
      return;
    }
    onServer
        .getCapacity()
        .forEach(
            (name, quantity) -> {
              if (isExtended(name)) {
                desired.getCapacity().put(name, new Quantity(quantity.toString()));
                desired.getAllocatable().put(name, new Quantity(quantity.toString()));
              }
            });
  }

  /** The extended resources {@code onServer}'s allocatable still has but its capacity no longer. */
  static List<String> stale(NodeStatus onServer) {
    if (onServer == null || onServer.getAllocatable() == null) {
      return List.of();
    }
    Map<String, Quantity> capacity =
        onServer.getCapacity() == null ? Map.of() : onServer.getCapacity();
    return onServer.getAllocatable().keySet().stream()
        .filter(name -> isExtended(name) && !capacity.containsKey(name))
        .toList();
  }

  /**
   * The {@code allocatable} of a strategic-merge patch: {@code desired}'s, with a null (which
   * deletes the key) for each of {@code stale}.
   */
  static Map<String, Object> allocatablePatch(NodeStatus desired, List<String> stale) {
    Map<String, Object> allocatable = new LinkedHashMap<>(desired.getAllocatable());
    stale.forEach(name -> allocatable.put(name, null));
    return allocatable;
  }
}
