package io.jkubelet.agent.eviction;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.jkubelet.agent.pod.PodRequests;
import io.jkubelet.agent.podconfig.Annotations;
import io.jkubelet.config.EvictionSettings.Signal;
import io.jkubelet.config.Quantities;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Upstream's pod ranking and eviction message ({@code eviction/helpers.go}, v1.20), and which pods
 * are critical ({@code kubelettypes.IsCriticalPod}). Pure functions.
 */
final class Ranking {
  private Ranking() {}

  /** Upstream's {@code scheduling.SystemCriticalPriority}. */
  static final int SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

  static final String MEMORY_PRESSURE_TAINT = "node.kubernetes.io/memory-pressure";

  /** Static, mirror, or of a priority of at least 2,000,000,000: never evicted, always admitted. */
  static boolean critical(Pod pod) {
    Integer priority = pod.getSpec() == null ? null : pod.getSpec().getPriority();
    return Annotations.isStatic(pod)
        || Annotations.isMirror(pod)
        || (priority != null && priority >= SYSTEM_CRITICAL_PRIORITY);
  }

  /**
   * The pods ranked for {@code signal}: the first is evicted first. {@code dedicatedImageFs}: the
   * engine's images and layers are on another file system than the root dir (see {@link
   * PodUsage.Disk#bytesOn}).
   */
  static List<Pod> rank(
      Signal signal, List<Pod> pods, Map<String, PodUsage> usage, boolean dedicatedImageFs) {
    ToLongFunction<PodUsage> bytes = u -> u.disk().bytesOn(signal, dedicatedImageFs);
    ToLongFunction<PodUsage> inodes = u -> u.disk().inodesOn(signal, dedicatedImageFs);
    List<Pod> out = new ArrayList<>(pods);
    Comparator<Pod> byPriority = Comparator.comparingInt(Ranking::priority);
    Comparator<Pod> order =
        switch (signal) {
          case MEMORY_AVAILABLE, ALLOCATABLE_MEMORY_AVAILABLE ->
              notFoundFirst(usage)
                  .thenComparing(exceeds(usage, "memory", u -> u.memoryWorkingSet()))
                  .thenComparing(byPriority)
                  .thenComparing(aboveRequest(usage, "memory", u -> u.memoryWorkingSet()));
          case PID_AVAILABLE ->
              byPriority
                  .thenComparing(notFoundFirst(usage))
                  .thenComparing(
                      Comparator.comparingLong(p -> -used(usage, p, PodUsage::processes)));
          case NODEFS_AVAILABLE, IMAGEFS_AVAILABLE ->
              notFoundFirst(usage)
                  .thenComparing(exceeds(usage, "ephemeral-storage", bytes))
                  .thenComparing(byPriority)
                  .thenComparing(aboveRequest(usage, "ephemeral-storage", bytes));
          case NODEFS_INODES_FREE, IMAGEFS_INODES_FREE ->
              notFoundFirst(usage)
                  .thenComparing(exceeds(usage, "inodes", inodes))
                  .thenComparing(byPriority)
                  .thenComparing(Comparator.comparingLong(p -> -used(usage, p, inodes)));
        };
    out.sort(order);
    return out;
  }

  /** Pods without stats first, as upstream's {@code cmpBool(!p1Found, !p2Found)}. */
  private static Comparator<Pod> notFoundFirst(Map<String, PodUsage> usage) {
    return Comparator.comparing((Pod p) -> usage.containsKey(uid(p)));
  }

  /** Pods using more than they request first. */
  private static Comparator<Pod> exceeds(
      Map<String, PodUsage> usage, String resource, ToLongFunction<PodUsage> f) {
    return Comparator.comparing(
        (Pod p) -> {
          PodUsage u = usage.get(uid(p));
          return u == null || f.applyAsLong(u) <= request(p, resource);
        });
  }

  /** The most used above its request first. */
  private static Comparator<Pod> aboveRequest(
      Map<String, PodUsage> usage, String resource, ToLongFunction<PodUsage> f) {
    return Comparator.comparingLong(
        (Pod p) -> {
          PodUsage u = usage.get(uid(p));
          return u == null ? 0 : -(f.applyAsLong(u) - request(p, resource));
        });
  }

  private static long used(Map<String, PodUsage> usage, Pod p, ToLongFunction<PodUsage> f) {
    PodUsage u = usage.get(uid(p));
    return u == null ? 0 : f.applyAsLong(u);
  }

  static int priority(Pod p) {
    Integer v = p.getSpec() == null ? null : p.getSpec().getPriority();
    return v == null ? 0 : v;
  }

  static String uid(Pod p) {
    return p.getMetadata().getUid();
  }

  /**
   * The pod's request of {@code resource} in bytes: the containers' requests summed, at least each
   * init container's, plus the pod's overhead ({@link PodRequests}).
   */
  static long request(Pod pod, String resource) {
    return PodRequests.of(pod).request(resource);
  }

  private static long bytes(Quantity q) {
    BigDecimal b = Quantity.getAmountInBytes(q);
    return b.setScale(0, java.math.RoundingMode.CEILING).longValue();
  }

  /**
   * Upstream's {@code evictionMessage}: the starved resource, then each container using more of it
   * than it requests (memory, or ephemeral storage: its writable layer and logs), e.g. {@code The
   * node was low on resource: memory. Container hog was using 312164Ki, which exceeds its request
   * of 0. }
   */
  static String message(String resource, Pod pod, PodUsage usage) {
    StringBuilder m = new StringBuilder("The node was low on resource: " + resource + ". ");
    for (Offender o : offenders(resource, pod, usage)) {
      m.append("Container ")
          .append(o.name())
          .append(" was using ")
          .append(Quantities.binarySi(o.used()))
          .append(", which exceeds its request of ")
          .append(o.request())
          .append(". ");
    }
    return m.toString();
  }

  /** A container using more of the starved resource than it requests. */
  record Offender(String name, long used, String request) {}

  /** The containers using more of the resource than they request, in the pod's order. */
  static List<Offender> offenders(String resource, Pod pod, PodUsage usage) {
    List<Offender> out = new ArrayList<>();
    if (usage == null) {
      return out;
    }
    Map<String, Long> byContainer = new java.util.HashMap<>();
    switch (resource) {
      case "memory" -> byContainer.putAll(usage.containerMemory());
      case "ephemeral-storage" ->
          usage
              .disk()
              .containers()
              .forEach((name, d) -> d.layerAndLogs().ifPresent(b -> byContainer.put(name, b)));
      default -> {}
    }
    for (Container c : pod.getSpec().getContainers()) {
      Long used = byContainer.get(c.getName());
      if (used == null) {
        continue;
      }
      Quantity q =
          c.getResources() == null || c.getResources().getRequests() == null
              ? null
              : c.getResources().getRequests().get(resource);
      long request = q == null ? 0 : bytes(q);
      if (used > request) {
        out.add(new Offender(c.getName(), used, q == null ? "0" : canonical(q)));
      }
    }
    return out;
  }

  /** A request as Go's {@code Quantity.String()} writes it: binary amounts canonical. */
  static String canonical(Quantity q) {
    String f = q.getFormat() == null ? "" : q.getFormat();
    return f.endsWith("i") ? Quantities.binarySi(bytes(q)) : q.toString();
  }

  /** Upstream's {@code TolerationsTolerateTaint} for the memory-pressure NoSchedule taint. */
  static boolean toleratesMemoryPressure(Pod pod) {
    List<Toleration> ts = pod.getSpec() == null ? null : pod.getSpec().getTolerations();
    if (ts == null) {
      return false;
    }
    for (Toleration t : ts) {
      String effect = t.getEffect();
      if (effect != null && !effect.isEmpty() && !effect.equals("NoSchedule")) {
        continue;
      }
      String key = t.getKey();
      String op = t.getOperator() == null || t.getOperator().isEmpty() ? "Equal" : t.getOperator();
      if (key == null || key.isEmpty()) {
        if (op.equals("Exists")) {
          return true;
        }
        continue;
      }
      if (!key.equals(MEMORY_PRESSURE_TAINT)) {
        continue;
      }
      if (op.equals("Exists") || (t.getValue() == null || t.getValue().isEmpty())) {
        return true;
      }
    }
    return false;
  }

  /** Upstream's event annotations: the offending containers, their usage, the resource. */
  static Map<String, String> annotations(String resource, Pod pod, PodUsage usage) {
    List<Offender> offenders = offenders(resource, pod, usage);
    Map<String, String> a = new LinkedHashMap<>();
    a.put(
        "offending_containers", String.join(",", offenders.stream().map(Offender::name).toList()));
    a.put(
        "offending_containers_usage",
        String.join(",", offenders.stream().map(o -> Quantities.binarySi(o.used())).toList()));
    a.put("starved_resource", resource);
    return a;
  }
}
