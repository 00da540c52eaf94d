package io.jkubelet.agent.cm;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.pod.PodRequests;
import io.jkubelet.agent.pod.PodSpecs;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A pod's quality-of-service class, as upstream's {@code qos.GetPodQOS} (v1.20): only cpu and
 * memory count, init containers count, and a resource counts only with an amount above zero.
 * BestEffort requests and limits nothing; Guaranteed limits cpu and memory in every container and
 * requests, summed over the pod, what it limits; anything else is Burstable. Requests default to
 * limits as the API defaults them (see {@link PodRequests}).
 *
 * <p>The one definition of the class: the pod's cgroup tier, its OOM score, eviction and the pod's
 * {@code status.qosClass} all read it here.
 */
public enum QosClass {
  GUARANTEED("Guaranteed"),
  BURSTABLE("Burstable"),
  BEST_EFFORT("BestEffort");

  private static final Set<String> COMPUTE = Set.of(PodRequests.CPU, PodRequests.MEMORY);

  private final String apiName;

  QosClass(String apiName) {
    this.apiName = apiName;
  }

  /** The name in the API's {@code status.qosClass}: {@code Guaranteed}, {@code Burstable}... */
  public String apiName() {
    return apiName;
  }

  /** The QoS cgroup's name under {@code kubepods}: {@code burstable}, {@code besteffort}. */
  String cgroupName() {
    return apiName.toLowerCase(Locale.ROOT);
  }

  /** The pod's class; stateless and thread-safe. */
  public static QosClass of(Pod pod) {
    Map<String, BigDecimal> requests = new HashMap<>();
    Map<String, BigDecimal> limits = new HashMap<>();
    boolean guaranteed = true;
    for (Container c : PodSpecs.allContainers(pod)) {
      sumPositive(PodRequests.requests(c), requests);
      Set<String> limited = new HashSet<>();
      for (Map.Entry<String, BigDecimal> e : PodRequests.limits(c).entrySet()) {
        if (COMPUTE.contains(e.getKey()) && e.getValue().signum() > 0) {
          limited.add(e.getKey());
          limits.merge(e.getKey(), e.getValue(), BigDecimal::add);
        }
      }
      if (!limited.containsAll(COMPUTE)) {
        guaranteed = false;
      }
    }
    if (requests.isEmpty() && limits.isEmpty()) {
      return BEST_EFFORT;
    }
    if (guaranteed) {
      for (Map.Entry<String, BigDecimal> e : requests.entrySet()) {
        BigDecimal limit = limits.get(e.getKey());
        if (limit == null || limit.compareTo(e.getValue()) != 0) {
          guaranteed = false;
          break;
        }
      }
    }
    return guaranteed && requests.size() == limits.size() ? GUARANTEED : BURSTABLE;
  }

  private static void sumPositive(Map<String, BigDecimal> from, Map<String, BigDecimal> into) {
    from.forEach(
        (name, amount) -> {
          if (COMPUTE.contains(name) && amount.signum() > 0) {
            into.merge(name, amount, BigDecimal::add);
          }
        });
  }
}
