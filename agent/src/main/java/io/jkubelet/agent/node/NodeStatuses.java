package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.ContainerImageBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeAddressBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.NodeSystemInfo;
import io.fabric8.kubernetes.api.model.NodeSystemInfoBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.runtime.ImageSummary;
import io.jkubelet.agent.util.Lifecycle.Health;
import io.jkubelet.config.Quantities;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The Node this agent reports, as pure functions of its inputs: the labels and the first Node
 * (upstream's {@code initialNode}), the status with its conditions (the setters of {@code
 * pkg/kubelet/nodestatus/setters.go}), whether the status changed, and whether to report it.
 *
 * <p>Conditions keep their {@code lastTransitionTime} while their status stays the same, and take
 * {@code now} when it changes; {@code lastHeartbeatTime} is always {@code now}. Times are RFC 3339
 * with seconds, as {@code metav1.Time} serializes.
 */
final class NodeStatuses {
  private NodeStatuses() {}

  static final String MEMORY_PRESSURE = "MemoryPressure";
  static final String DISK_PRESSURE = "DiskPressure";
  static final String PID_PRESSURE = "PIDPressure";
  static final String READY = "Ready";
  static final String CONTROLLER_MANAGED_ATTACH_DETACH =
      "volumes.kubernetes.io/controller-managed-attach-detach";

  /** The events recorded when a node registers for the first time, whatever the API held. */
  static final List<String> REGISTRATION_EVENTS =
      List.of(
          Reasons.NODE_HAS_SUFFICIENT_MEMORY,
          Reasons.NODE_HAS_NO_DISK_PRESSURE,
          Reasons.NODE_HAS_SUFFICIENT_PID);

  /** A status to report, and the node events its condition changes call for, in condition order. */
  record Desired(NodeStatus status, List<String> events) {}

  /** The default labels, then the extra ones, which override them as upstream. */
  static Map<String, String> labels(NodeOptions o, NodeInfo m) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("beta.kubernetes.io/arch", m.system().architecture());
    labels.put("beta.kubernetes.io/os", m.system().operatingSystem());
    labels.put("kubernetes.io/arch", m.system().architecture());
    labels.put("kubernetes.io/hostname", o.hostname());
    labels.put("kubernetes.io/os", m.system().operatingSystem());
    labels.putAll(o.registration().extraLabels());
    return labels;
  }

  /**
   * The Node to create: name, labels, the taints to register with, the provider ID, and the status.
   */
  static Node initialNode(NodeOptions o, NodeInfo m, NodeStatus status) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(o.nodeName())
        .withLabels(labels(o, m))
        // Volumes are attached by the attach/detach controller, as upstream's default
        // --enable-controller-attach-detach says.
        .withAnnotations(Map.of(CONTROLLER_MANAGED_ATTACH_DETACH, "true"))
        .endMetadata()
        .withNewSpec()
        .withTaints(o.registration().taints().isEmpty() ? null : o.registration().taints())
        .withProviderID(
            o.registration().providerId().isEmpty() ? null : o.registration().providerId())
        .endSpec()
        .withStatus(status)
        .build();
  }

  /**
   * The status to report at {@code now}, with allocatable less {@code reservation} (upstream's
   * {@code GetNodeAllocatableReservation}: resource to amount, cpu in thousandths) and the pressure
   * conditions that are True.
   *
   * @param runtimeVersion e.g. {@code docker://20.10.24}
   * @param readiness not OK makes Ready False with reason KubeletNotReady and its message
   * @param previous the conditions the API holds (null or empty when there are none)
   */
  static Desired desired(
      NodeOptions o,
      NodeInfo m,
      String runtimeVersion,
      Health readiness,
      List<NodeCondition> previous,
      Instant now,
      Map<String, Long> reservation,
      Set<String> pressure) {
    Map<String, Quantity> capacity = capacity(o, m);
    Map<String, Quantity> allocatable = allocatable(m, capacity, reservation);
    List<String> events = new ArrayList<>();
    List<NodeCondition> conditions =
        NodeConditions.conditions(NodeConditions.wants(readiness, pressure), previous, now, events);
    NodeStatus status =
        new NodeStatusBuilder()
            .withCapacity(capacity)
            .withAllocatable(allocatable)
            .withAddresses(
                new NodeAddressBuilder().withType("InternalIP").withAddress(o.nodeIp()).build(),
                new NodeAddressBuilder().withType("Hostname").withAddress(o.hostname()).build())
            .withNodeInfo(nodeInfo(o, m, runtimeVersion))
            .withNewDaemonEndpoints()
            .withNewKubeletEndpoint(o.kubeletPort())
            .endDaemonEndpoints()
            .withConditions(conditions)
            .build();
    return new Desired(status, List.copyOf(events));
  }

  /**
   * Upstream's {@code NodeAllocatable} setter: each resource's capacity less its reservation, never
   * below 0; then memory less every hugepage size's capacity.
   */
  static Map<String, Quantity> allocatable(
      NodeInfo m, Map<String, Quantity> capacity, Map<String, Long> reservation) {
    Map<String, Quantity> allocatable = new LinkedHashMap<>();
    capacity.forEach((k, v) -> allocatable.put(k, new Quantity(v.toString())));
    long cpu = Math.max(0, m.cpus() * 1000L - reservation.getOrDefault("cpu", 0L));
    allocatable.put("cpu", new Quantity(cpu % 1000 == 0 ? Long.toString(cpu / 1000) : cpu + "m"));
    long memory = m.memoryBytes() - reservation.getOrDefault("memory", 0L);
    for (long huge : m.hugePages().values()) {
      memory -= huge;
    }
    allocatable.put("memory", new Quantity(Quantities.binarySi(Math.max(0, memory))));
    long storage =
        Math.max(0, m.ephemeralStorageBytes() - reservation.getOrDefault("ephemeral-storage", 0L));
    allocatable.put("ephemeral-storage", new Quantity(Quantities.binarySi(storage)));
    return allocatable;
  }

  private static Map<String, Quantity> capacity(NodeOptions o, NodeInfo m) {
    Map<String, Quantity> capacity = new LinkedHashMap<>();
    capacity.put("cpu", new Quantity(Integer.toString(m.cpus())));
    capacity.put("ephemeral-storage", new Quantity(Quantities.binarySi(m.ephemeralStorageBytes())));
    capacity.put("memory", new Quantity(Quantities.binarySi(m.memoryBytes())));
    capacity.put("pods", new Quantity(Integer.toString(o.capacity().maxPods())));
    m.hugePages()
        .forEach(
            (size, bytes) ->
                capacity.put("hugepages-" + size, new Quantity(Quantities.binarySi(bytes))));
    return capacity;
  }

  private static NodeSystemInfo nodeInfo(NodeOptions o, NodeInfo m, String runtimeVersion) {
    return new NodeSystemInfoBuilder()
        .withMachineID(m.system().machineId())
        .withSystemUUID(m.system().systemUuid())
        .withBootID(m.system().bootId())
        .withKernelVersion(m.system().kernelVersion())
        .withOsImage(m.system().osImage())
        .withContainerRuntimeVersion(runtimeVersion)
        .withKubeletVersion(o.kubeletVersion())
        .withKubeProxyVersion(o.kubeletVersion())
        .withOperatingSystem(m.system().operatingSystem())
        .withArchitecture(m.system().architecture())
        .build();
  }

  /** The most images a Node lists, as upstream's {@code nodeStatusMaxImages}. */
  static final int MAX_IMAGES = 50;

  /** The most names one image lists, as upstream's {@code maxNamesPerImageInNodeStatus}. */
  static final int MAX_NAMES_PER_IMAGE = 5;

  /**
   * {@code status.images} as upstream's {@code Images} setter makes it: largest first, at most
   * {@value #MAX_IMAGES}, each with at most {@value #MAX_NAMES_PER_IMAGE} names; images without a
   * name are left out.
   */
  static List<ContainerImage> images(List<ImageSummary> images) {
    return images.stream()
        .filter(i -> !i.names().isEmpty())
        .sorted(Comparator.comparingLong(ImageSummary::sizeBytes).reversed())
        .limit(MAX_IMAGES)
        .map(
            i ->
                new ContainerImageBuilder()
                    .withNames(
                        i.names().subList(0, Math.min(MAX_NAMES_PER_IMAGE, i.names().size())))
                    .withSizeBytes(i.sizeBytes())
                    .build())
        .toList();
  }

  private static List<String> imageNames(List<ContainerImage> images) {
    return images == null
        ? List.of()
        : images.stream().map(i -> i.getNames() + "=" + i.getSizeBytes()).toList();
  }

  /**
   * Whether {@code desired} differs from what the API holds in the fields this agent owns: capacity
   * and allocatable (compared as quantities, so {@code 1Gi} equals {@code 1073741824}), addresses,
   * nodeInfo, daemonEndpoints and its four conditions, ignoring {@code lastHeartbeatTime}. Fields
   * others own (images, volumes, extended resources, other conditions) are not compared.
   */
  static boolean changed(NodeStatus onServer, NodeStatus desired) {
    if (onServer == null) {
      return true;
    }
    if (!imageNames(onServer.getImages()).equals(imageNames(desired.getImages()))) {
      return true;
    }
    if (!sameQuantities(onServer.getCapacity(), desired.getCapacity())
        || !sameQuantities(onServer.getAllocatable(), desired.getAllocatable())) {
      return true;
    }
    if (!addresses(onServer.getAddresses()).equals(addresses(desired.getAddresses()))) {
      return true;
    }
    if (!sameInfo(onServer.getNodeInfo(), desired.getNodeInfo())) {
      return true;
    }
    if (!Objects.equals(kubeletPort(onServer), kubeletPort(desired))) {
      return true;
    }
    for (NodeCondition want : desired.getConditions()) {
      NodeCondition have = find(onServer.getConditions(), want.getType());
      if (have == null
          || !Objects.equals(have.getStatus(), want.getStatus())
          || !Objects.equals(have.getReason(), want.getReason())
          || !Objects.equals(have.getMessage(), want.getMessage())
          || !Objects.equals(have.getLastTransitionTime(), want.getLastTransitionTime())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether to PATCH the status, as upstream's {@code tryUpdateNodeStatus}: when it changed, when
   * nothing was reported yet, or when {@code reportFrequency} has passed since the last report.
   */
  static boolean shouldReport(
      boolean changed, Instant lastReport, Instant now, Duration reportFrequency) {
    return changed || lastReport == null || !now.isBefore(lastReport.plus(reportFrequency));
  }

  /**
   * The body of a strategic-merge PATCH of {@code nodes/<name>/status} that sets the fields this
   * agent owns and leaves the rest alone: conditions and addresses merge by {@code type}, the
   * resource maps by key. Each of {@code staleAllocatable} is deleted from allocatable ({@link
   * ExtendedResources}).
   */
  static Map<String, Object> statusPatch(NodeStatus s, List<String> staleAllocatable) {
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("capacity", s.getCapacity());
    status.put("allocatable", ExtendedResources.allocatablePatch(s, staleAllocatable));
    status.put("addresses", s.getAddresses());
    status.put("nodeInfo", s.getNodeInfo());
    status.put("daemonEndpoints", s.getDaemonEndpoints());
    status.put("conditions", s.getConditions());
    status.put("images", s.getImages() == null ? List.of() : s.getImages());
    return Map.of("status", status);
  }

  /** The condition of that type, or null. */
  static NodeCondition find(List<NodeCondition> conditions, String type) {
    if (conditions == null) {
      return null;
    }
    for (NodeCondition c : conditions) {
      if (type.equals(c.getType())) {
        return c;
      }
    }
    return null;
  }

  /** RFC 3339 with seconds, as {@code metav1.Time}. */
  static String time(Instant t) {
    return DateTimeFormatter.ISO_INSTANT.format(t.truncatedTo(ChronoUnit.SECONDS));
  }

  private static boolean sameQuantities(Map<String, Quantity> have, Map<String, Quantity> want) {
    for (Map.Entry<String, Quantity> e : want.entrySet()) {
      Quantity h = have == null ? null : have.get(e.getKey());
      if (h == null || h.compareTo(e.getValue()) != 0) {
        return false;
      }
    }
    return true;
  }

  private static List<String> addresses(List<NodeAddress> addresses) {
    return addresses == null
        ? List.of()
        : addresses.stream().map(a -> a.getType() + "=" + a.getAddress()).toList();
  }

  private static boolean sameInfo(NodeSystemInfo a, NodeSystemInfo b) {
    if (a == null || b == null) {
      return a == b;
    }
    return Objects.equals(a.getMachineID(), b.getMachineID())
        && Objects.equals(a.getSystemUUID(), b.getSystemUUID())
        && Objects.equals(a.getBootID(), b.getBootID())
        && Objects.equals(a.getKernelVersion(), b.getKernelVersion())
        && Objects.equals(a.getOsImage(), b.getOsImage())
        && Objects.equals(a.getContainerRuntimeVersion(), b.getContainerRuntimeVersion())
        && Objects.equals(a.getKubeletVersion(), b.getKubeletVersion())
        && Objects.equals(a.getKubeProxyVersion(), b.getKubeProxyVersion())
        && Objects.equals(a.getOperatingSystem(), b.getOperatingSystem())
        && Objects.equals(a.getArchitecture(), b.getArchitecture());
  }

  private static Integer kubeletPort(NodeStatus s) {
    if (s.getDaemonEndpoints() == null || s.getDaemonEndpoints().getKubeletEndpoint() == null) {
      return null;
    }
    return s.getDaemonEndpoints().getKubeletEndpoint().getPort();
  }
}
