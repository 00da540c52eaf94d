package io.jkubelet.agent.cm;

import java.util.Objects;

/**
 * The node's capacity and what is held back from pods, as upstream's node allocatable ({@code
 * node_container_manager_linux.go}, v1.20).
 *
 * <p>NOTE: the hard eviction threshold is part of the {@link #reservation()} (what the scheduler
 * sees subtracted from allocatable) but, as upstream, not of the limit {@code kubepods} gets
 * ({@link #enforced()}): the eviction manager, not the cgroup, keeps that memory free.
 *
 * @param capacity what the node has; {@code pids} is {@code kernel.pid_max}, 0 if unknown
 * @param kubeReserved {@code kubeReserved}
 * @param systemReserved {@code systemReserved}
 * @param evictionHardMemoryBytes the memory of {@code evictionHard}'s {@code memory.available}
 */
public record NodeAllocatable(
    Amounts capacity, Amounts kubeReserved, Amounts systemReserved, long evictionHardMemoryBytes) {

  /**
   * Amounts of the resources a cgroup limits.
   *
   * @param milliCpu thousandths of a core
   * @param memoryBytes bytes
   * @param pids processes; 0 for none or unknown
   */
  public record Amounts(long milliCpu, long memoryBytes, long pids) {
    public static final Amounts NONE = new Amounts(0, 0, 0);

    public Amounts {
      if (milliCpu < 0 || memoryBytes < 0 || pids < 0) {
        throw new IllegalArgumentException(
            "amounts must not be negative: cpu "
                + milliCpu
                + "m, memory "
                + memoryBytes
                + ", pids "
                + pids);
      }
    }

    Amounts minus(Amounts o) {
      return new Amounts(
          Math.max(0, milliCpu - o.milliCpu),
          Math.max(0, memoryBytes - o.memoryBytes),
          Math.max(0, pids - o.pids));
    }

    Amounts plus(Amounts o) {
      return new Amounts(milliCpu + o.milliCpu, memoryBytes + o.memoryBytes, pids + o.pids);
    }
  }

  public NodeAllocatable {
    Objects.requireNonNull(capacity, "capacity");
    Objects.requireNonNull(kubeReserved, "kubeReserved");
    Objects.requireNonNull(systemReserved, "systemReserved");
    if (evictionHardMemoryBytes < 0) {
      throw new IllegalArgumentException("evictionHardMemoryBytes must not be negative");
    }
  }

  /** A node that reserves nothing. */
  public static NodeAllocatable of(Amounts capacity) {
    return new NodeAllocatable(capacity, Amounts.NONE, Amounts.NONE, 0);
  }

  /** Capacity minus kube and system reservations, never below 0 (upstream's absolute). */
  public Amounts enforced() {
    return capacity.minus(kubeReserved).minus(systemReserved);
  }

  /** What is held back from scheduling: both reservations and the hard eviction memory. */
  public Amounts reservation() {
    return kubeReserved.plus(systemReserved).plus(new Amounts(0, evictionHardMemoryBytes, 0));
  }

  /**
   * {@code kubepods}' limits, as upstream's {@code getCgroupConfig}: the enforced amounts when
   * {@code enforcePods} ({@code enforceNodeAllocatable} has {@code pods}), the capacity otherwise
   * (the cgroup gets shares in any case: the default 1024 would starve pods). No CFS quota.
   */
  public ResourceConfig kubepodsConfig(boolean enforcePods) {
    Amounts a = enforcePods ? enforced() : capacity;
    ResourceConfig c =
        ResourceConfig.shares(CpuUnits.milliCpuToShares(a.milliCpu()))
            .withMemoryLimit(a.memoryBytes());
    return a.pids() > 0 ? c.withPidsLimit(a.pids()) : c;
  }
}
