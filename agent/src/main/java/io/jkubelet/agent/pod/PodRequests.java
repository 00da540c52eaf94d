package io.jkubelet.agent.pod;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.HashMap;
import java.util.Map;

/**
 * A pod's requests and limits as upstream's {@code resource.PodRequestsAndLimits} (v1.20): the sum
 * over the app containers, raised to the largest init container's, plus the pod's {@code overhead}
 * (added to every request, and to a limit only where the pod has a non-zero one).
 *
 * <p>A container's requests are read with the API's defaulting applied: a resource it limits but
 * does not request is requested at its limit. Pods from the API server and static pods (see {@code
 * podconfig.PodDefaults}) are defaulted already, so this changes nothing for them.
 *
 * <p>The one definition of a pod's requests and limits: the pod cgroups, the QoS class, admission
 * and eviction's ranking and local storage limits all read them here. Stateless; thread-safe.
 */
public final class PodRequests {
  public static final String CPU = "cpu";
  public static final String MEMORY = "memory";
  public static final String EPHEMERAL_STORAGE = "ephemeral-storage";

  private PodRequests() {}

  /**
   * The pod's summed requests and limits, by resource name.
   *
   * @param requests resource name to amount (cores for cpu, bytes for memory)
   * @param limits resource name to amount
   */
  public record Totals(Map<String, BigDecimal> requests, Map<String, BigDecimal> limits) {
    public Totals {
      requests = Map.copyOf(requests);
      limits = Map.copyOf(limits);
    }

    /** The request's upstream {@code MilliValue()}, or 0 when absent. */
    public long milliRequest(String name) {
      return milli(requests.getOrDefault(name, BigDecimal.ZERO));
    }

    /** The limit's upstream {@code MilliValue()}, or 0 when absent. */
    public long milliLimit(String name) {
      return milli(limits.getOrDefault(name, BigDecimal.ZERO));
    }

    /** The request's upstream {@code Value()}, or 0 when absent. */
    public long request(String name) {
      return value(requests.getOrDefault(name, BigDecimal.ZERO));
    }

    /** The limit's upstream {@code Value()}, or 0 when absent. */
    public long limit(String name) {
      return value(limits.getOrDefault(name, BigDecimal.ZERO));
    }
  }

  /** Upstream's {@code PodRequestsAndLimits}, a container's requests defaulted to its limits. */
  public static Totals of(Pod pod) {
    Map<String, BigDecimal> reqs = new HashMap<>();
    Map<String, BigDecimal> limits = new HashMap<>();
    for (Container c : PodSpecs.containers(pod)) {
      requests(c).forEach((k, v) -> reqs.merge(k, v, BigDecimal::add));
      limits(c).forEach((k, v) -> limits.merge(k, v, BigDecimal::add));
    }
    for (Container c : PodSpecs.initContainers(pod)) {
      requests(c).forEach((k, v) -> reqs.merge(k, v, BigDecimal::max));
      limits(c).forEach((k, v) -> limits.merge(k, v, BigDecimal::max));
    }
    Map<String, Quantity> overhead = pod.getSpec().getOverhead();
    if (overhead != null) {
      overhead.forEach(
          (k, q) -> {
            BigDecimal v = amount(q);
            reqs.merge(k, v, BigDecimal::add);
            BigDecimal limit = limits.get(k);
            if (limit != null && limit.signum() != 0) {
              limits.put(k, limit.add(v));
            }
          });
    }
    return new Totals(reqs, limits);
  }

  /** The container's requests, a limited but unrequested resource requested at its limit. */
  public static Map<String, BigDecimal> requests(Container c) {
    Map<String, BigDecimal> out = specRequests(c);
    limits(c).forEach(out::putIfAbsent);
    return out;
  }

  /** The container's requests exactly as its spec gives them. */
  public static Map<String, BigDecimal> specRequests(Container c) {
    return amounts(c.getResources() == null ? null : c.getResources().getRequests());
  }

  /** The container's limits exactly as its spec gives them. */
  public static Map<String, BigDecimal> limits(Container c) {
    return amounts(c.getResources() == null ? null : c.getResources().getLimits());
  }

  private static Map<String, BigDecimal> amounts(Map<String, Quantity> list) {
    Map<String, BigDecimal> out = new HashMap<>();
    if (list != null) {
      list.forEach((k, q) -> out.put(k, amount(q)));
    }
    return out;
  }

  /** Upstream's {@code Quantity.MilliValue()}: thousandths, rounded up. */
  public static long milli(BigDecimal v) {
    return v.movePointRight(3).setScale(0, RoundingMode.CEILING).longValueExact();
  }

  /** Upstream's {@code Quantity.Value()}: rounded up. */
  public static long value(BigDecimal v) {
    return v.setScale(0, RoundingMode.CEILING).longValueExact();
  }

  private static BigDecimal amount(Quantity q) {
    return q == null ? BigDecimal.ZERO : q.getNumericalAmount();
  }
}
