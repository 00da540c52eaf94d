package io.jkubelet.agent.env;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectFieldSelector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceFieldSelector;
import io.jkubelet.agent.pod.PodRequests;
import io.jkubelet.agent.util.GoQuote;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The downward API's values, as upstream's {@code podFieldSelectorRuntimeValue}, {@code
 * fieldpath.ExtractFieldPathAsString} and {@code resource.ExtractContainerResourceValue}.
 * Stateless; downward API volumes use it too.
 */
public final class DownwardApi {
  private DownwardApi() {}

  /**
   * Where the pod runs: its IPs (the first is {@code status.podIP}), asked only when a variable
   * needs them, since that may cost a runtime call; and the node's IP.
   */
  public record Addresses(Supplier<List<String>> podIps, String hostIp) {
    /** Fixed addresses. */
    public static Addresses of(List<String> podIps, String hostIp) {
      List<String> ips = List.copyOf(podIps);
      return new Addresses(() -> ips, hostIp);
    }
  }

  /**
   * A {@code fieldRef}'s value.
   *
   * @throws EnvException for a path upstream does not support, with upstream's message
   */
  public static String field(Pod pod, ObjectFieldSelector ref, Addresses at) throws EnvException {
    String path = ref.getFieldPath() == null ? "" : ref.getFieldPath();
    switch (path) {
      case "spec.nodeName":
        return nullToEmpty(pod.getSpec().getNodeName());
      case "spec.serviceAccountName":
        return nullToEmpty(pod.getSpec().getServiceAccountName());
      case "status.hostIP":
        return at.hostIp();
      case "status.podIP":
        List<String> ips = at.podIps().get();
        return ips.isEmpty() ? "" : ips.get(0);
      case "status.podIPs":
        return String.join(",", at.podIps().get());
      default:
        return fieldPath(pod, path);
    }
  }

  /**
   * A {@code metadata.*} path, with the {@code labels['k']} and whole-map forms: upstream's {@code
   * fieldpath.ExtractFieldPathAsString}, which downward-API volumes use too.
   */
  public static String fieldPath(Pod pod, String path) throws EnvException {
    if (path.endsWith("']")) {
      int open = path.indexOf("['");
      if (open > 0) {
        String map = path.substring(0, open);
        String key = path.substring(open + 2, path.length() - 2);
        return switch (map) {
          case "metadata.annotations" ->
              orEmpty(pod.getMetadata().getAnnotations()).getOrDefault(key, "");
          case "metadata.labels" -> orEmpty(pod.getMetadata().getLabels()).getOrDefault(key, "");
          default ->
              throw new EnvException("fieldPath \"" + path + "\" does not support subscript");
        };
      }
    }
    return switch (path) {
      case "metadata.annotations" -> formatMap(pod.getMetadata().getAnnotations());
      case "metadata.labels" -> formatMap(pod.getMetadata().getLabels());
      case "metadata.name" -> nullToEmpty(pod.getMetadata().getName());
      case "metadata.namespace" -> nullToEmpty(pod.getMetadata().getNamespace());
      case "metadata.uid" -> nullToEmpty(pod.getMetadata().getUid());
      default -> throw new EnvException("unsupported fieldPath: " + path);
    };
  }

  /** {@code k="v"} lines in key order, as upstream's {@code fieldpath.FormatMap}. */
  public static String formatMap(Map<String, String> m) {
    List<String> lines = new ArrayList<>();
    new TreeMap<>(orEmpty(m)).forEach((k, v) -> lines.add(k + "=" + GoQuote.quote(v)));
    return String.join("\n", lines);
  }

  /**
   * A {@code resourceFieldRef}'s value in a container's environment, as upstream's {@code
   * containerResourceRuntimeValue} on the pod its {@code defaultPodLimitsForDownwardAPI} made: the
   * named container's (or {@code self}'s) limit or request, divided by the divisor (default 1) and
   * rounded up. A missing or zero limit of cpu, memory or ephemeral-storage is the node's
   * allocatable, except for a named init container, as upstream defaults the pod's containers only.
   *
   * @throws EnvException for an unknown container or resource
   */
  public static String resource(
      Pod pod, Container self, ResourceFieldSelector ref, NodeAllocatable node)
      throws EnvException {
    String named = ref.getContainerName();
    if (named == null || named.isEmpty()) {
      return value(self, true, ref, node);
    }
    boolean defaulted =
        pod.getSpec().getContainers().stream().anyMatch(x -> named.equals(x.getName()));
    return value(find(pod, named), defaulted, ref, node);
  }

  /**
   * A downward API volume's {@code resourceFieldRef} value, as upstream's {@code
   * ExtractResourceValueByContainerNameAndNodeAllocatable}: as {@link #resource}, of the named
   * container, whose missing or zero limits are the node's allocatable even for an init container.
   *
   * @throws EnvException for an unknown container or resource
   */
  public static String volumeResource(Pod pod, ResourceFieldSelector ref, NodeAllocatable node)
      throws EnvException {
    return value(find(pod, nullToEmpty(ref.getContainerName())), true, ref, node);
  }

  /** Upstream's {@code ExtractContainerResourceValue}, {@code defaulted} as its merged limits. */
  private static String value(
      Container c, boolean defaulted, ResourceFieldSelector ref, NodeAllocatable node)
      throws EnvException {
    String res = ref.getResource() == null ? "" : ref.getResource();
    int dot = res.indexOf('.');
    String kind = dot < 0 ? "" : res.substring(0, dot);
    String name = dot < 0 ? res : res.substring(dot + 1);
    if (!kind.equals("limits") && !kind.equals("requests")
        || !(name.equals("cpu")
            || name.equals("memory")
            || name.equals("ephemeral-storage")
            || name.startsWith("hugepages-"))) {
      throw new EnvException("unsupported container resource : " + res);
    }
    BigDecimal value =
        (kind.equals("limits") ? PodRequests.limits(c) : PodRequests.specRequests(c))
            .getOrDefault(name, BigDecimal.ZERO);
    if (kind.equals("limits") && defaulted && value.signum() == 0) {
      value =
          switch (name) {
            case "cpu" -> BigDecimal.valueOf(node.milliCpu()).movePointLeft(3);
            case "memory" -> BigDecimal.valueOf(node.memoryBytes());
            case "ephemeral-storage" -> BigDecimal.valueOf(node.ephemeralStorageBytes());
            default -> value;
          };
    }
    BigDecimal divisor =
        ref.getDivisor() == null || ref.getDivisor().getAmount() == null
            ? BigDecimal.ONE
            : ref.getDivisor().getNumericalAmount();
    if (divisor.signum() == 0) {
      divisor = BigDecimal.ONE;
    }
    if (name.equals("cpu")) {
      long milli = PodRequests.milli(value);
      long divMilli = Math.max(1, PodRequests.milli(divisor));
      return Long.toString((long) Math.ceil((double) milli / (double) divMilli));
    }
    long v = PodRequests.value(value);
    long d = Math.max(1, PodRequests.value(divisor));
    return Long.toString((long) Math.ceil((double) v / (double) d));
  }

  private static Container find(Pod pod, String name) throws EnvException {
    for (Container c : pod.getSpec().getContainers()) {
      if (name.equals(c.getName())) {
        return c;
      }
    }
    if (pod.getSpec().getInitContainers() != null) {
      for (Container c : pod.getSpec().getInitContainers()) {
        if (name.equals(c.getName())) {
          return c;
        }
      }
    }
    throw new EnvException("container " + name + " not found");
  }

  private static Map<String, String> orEmpty(Map<String, String> m) {
    return m == null ? Map.of() : m;
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
