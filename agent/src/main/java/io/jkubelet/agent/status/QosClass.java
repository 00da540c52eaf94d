package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.kuberuntime.Actions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A pod's quality-of-service class from its containers' requests and limits, as upstream's {@code
 * qos.GetPodQOS}: BestEffort without any, Guaranteed when every container limits cpu and memory and
 * requests what it limits, Burstable otherwise. Stateless; thread-safe.
 */
final class QosClass {
  private static final List<String> RESOURCES = List.of("cpu", "memory");

  private QosClass() {}

  /** Upstream's {@code GetPodQOS}. */
  static String of(Pod pod) {
    Map<String, Quantity> requests = new HashMap<>();
    Map<String, Quantity> limits = new HashMap<>();
    boolean guaranteed = true;
    List<Container> all = new ArrayList<>(Actions.inits(pod));
    all.addAll(pod.getSpec().getContainers());
    for (Container c : all) {
      var r = c.getResources();
      Map<String, Quantity> req = r == null || r.getRequests() == null ? Map.of() : r.getRequests();
      Map<String, Quantity> lim = r == null || r.getLimits() == null ? Map.of() : r.getLimits();
      for (String res : RESOURCES) {
        Quantity q = req.get(res);
        if (q != null && q.getNumericalAmount().signum() > 0) {
          requests.put(res, q);
        }
        Quantity l = lim.get(res);
        if (l != null && l.getNumericalAmount().signum() > 0) {
          limits.put(res, l);
        }
      }
      if (!lim.containsKey("cpu") || !lim.containsKey("memory")) {
        guaranteed = false;
      }
      for (String res : RESOURCES) {
        Quantity q = req.get(res);
        Quantity l = lim.get(res);
        if (q != null
            && l != null
            && q.getNumericalAmount().compareTo(l.getNumericalAmount()) != 0) {
          guaranteed = false;
        }
      }
    }
    if (requests.isEmpty() && limits.isEmpty()) {
      return "BestEffort";
    }
    return guaranteed ? "Guaranteed" : "Burstable";
  }
}
