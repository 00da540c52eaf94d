package io.jkubelet.agent.cm;

import io.jkubelet.agent.node.NodeInfo;
import io.jkubelet.config.EvictionSettings;
import io.jkubelet.config.Records;
import io.jkubelet.config.ReservationSettings;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The node's capacity and what is held back from pods, as upstream's node allocatable ({@code
 * node_container_manager_linux.go}, v1.20). The one computation of it: {@code kubepods}' limits,
 * the reservation the Node's status subtracts ({@link #reservationByResource()}) and what the pod
 * admitter offers ({@link #allocatable()}) all come from here.
 *
 * <p>NOTE: the hard eviction thresholds are part of the {@link #reservation()} (what the scheduler
 * sees subtracted from allocatable) but, as upstream, not of the limit {@code kubepods} gets
 * ({@link #enforced()}): the eviction manager, not the cgroup, keeps that memory free.
 *
 * @param capacity what the node has; {@code pids} is {@code kernel.pid_max}, 0 if unknown
 * @param kubeReserved {@code kubeReserved}
 * @param systemReserved {@code systemReserved}
 * @param evictionHard the hard thresholds of {@code memory.available} (memory) and {@code
 *     nodefs.available} (ephemeral storage), a percentage taken of the capacity
 * @param hugePagesBytes the memory reserved as huge pages, of every size: not allocatable memory
 */
public record NodeAllocatable(
    Amounts capacity,
    Amounts kubeReserved,
    Amounts systemReserved,
    Amounts evictionHard,
    long hugePagesBytes) {

  /**
   * Amounts of the resources a node has and reserves.
   *
   * @param milliCpu thousandths of a core
   * @param memoryBytes bytes
   * @param ephemeralStorageBytes bytes of the root directory's file system
   * @param pids processes; 0 for none or unknown
   */
  public record Amounts(long milliCpu, long memoryBytes, long ephemeralStorageBytes, long pids) {
    public static final Amounts NONE = new Amounts(0, 0, 0, 0);

    public Amounts {
      if (milliCpu < 0 || memoryBytes < 0 || ephemeralStorageBytes < 0 || pids < 0) {
        throw new IllegalArgumentException(
            "amounts must not be negative: cpu "
                + milliCpu
                + "m, memory "
                + memoryBytes
                + ", ephemeral storage "
                + ephemeralStorageBytes
                + ", pids "
                + pids);
      }
    }

    Amounts minus(Amounts o) {
      return new Amounts(
          Math.max(0, milliCpu - o.milliCpu),
          Math.max(0, memoryBytes - o.memoryBytes),
          Math.max(0, ephemeralStorageBytes - o.ephemeralStorageBytes),
          Math.max(0, pids - o.pids));
    }

    Amounts plus(Amounts o) {
      return new Amounts(
          milliCpu + o.milliCpu,
          memoryBytes + o.memoryBytes,
          ephemeralStorageBytes + o.ephemeralStorageBytes,
          pids + o.pids);
    }
  }

  public NodeAllocatable {
    Records.requireNonNull(
        NodeAllocatable.class, capacity, kubeReserved, systemReserved, evictionHard);
    if (hugePagesBytes < 0) {
      throw new IllegalArgumentException("hugePagesBytes must not be negative");
    }
  }

  /**
   * The node's allocatable from the machine's facts and the configuration: capacity the machine's
   * cpus, memory, root file system and {@code pidMax}; reserved {@code kubeReserved} and {@code
   * systemReserved}; and the hard {@code memory.available} and {@code nodefs.available} thresholds
   * (upstream's {@code hardEvictionReservation}).
   *
   * @param pidMax {@code kernel.pid_max}, 0 when unknown or not wanted (no pids limit)
   */
  public static NodeAllocatable of(
      NodeInfo machine, long pidMax, ReservationSettings reserved, EvictionSettings eviction) {
    Amounts capacity =
        new Amounts(
            machine.cpus() * 1000L, machine.memoryBytes(), machine.ephemeralStorageBytes(), pidMax);
    long hardMemory =
        eviction
            .hard(EvictionSettings.Signal.MEMORY_AVAILABLE)
            .map(t -> t.value().resolve(capacity.memoryBytes()))
            .orElse(0L);
    long hardStorage =
        eviction
            .hard(EvictionSettings.Signal.NODEFS_AVAILABLE)
            .map(t -> t.value().resolve(capacity.ephemeralStorageBytes()))
            .orElse(0L);
    long hugePages = machine.hugePages().values().stream().mapToLong(Long::longValue).sum();
    return new NodeAllocatable(
        capacity,
        reserved(reserved::kube),
        reserved(reserved::system),
        new Amounts(0, hardMemory, hardStorage, 0),
        hugePages);
  }

  private static Amounts reserved(java.util.function.ToLongFunction<String> of) {
    return new Amounts(
        of.applyAsLong("cpu"),
        of.applyAsLong("memory"),
        of.applyAsLong("ephemeral-storage"),
        of.applyAsLong("pid"));
  }

  /** A node that reserves nothing. */
  public static NodeAllocatable of(Amounts capacity) {
    return new NodeAllocatable(capacity, Amounts.NONE, Amounts.NONE, Amounts.NONE, 0);
  }

  /** Capacity minus kube and system reservations, never below 0 (upstream's absolute). */
  public Amounts enforced() {
    return capacity.minus(kubeReserved).minus(systemReserved);
  }

  /** What is held back from scheduling: both reservations and the hard eviction thresholds. */
  public Amounts reservation() {
    return kubeReserved.plus(systemReserved).plus(evictionHard);
  }

  /**
   * Upstream's {@code GetNodeAllocatableReservation}: the {@link #reservation()} of cpu ({@code
   * cpu}, thousandths of a core), {@code memory} and {@code ephemeral-storage} (bytes), by resource
   * name; a resource nothing is held back of is left out.
   */
  public Map<String, Long> reservationByResource() {
    Amounts r = reservation();
    Map<String, Long> out = new LinkedHashMap<>();
    out.put("cpu", r.milliCpu());
    out.put("memory", r.memoryBytes());
    out.put("ephemeral-storage", r.ephemeralStorageBytes());
    out.values().removeIf(v -> v == 0);
    return out;
  }

  /**
   * The Node's allocatable, as upstream's status setter makes it: the capacity less the {@link
   * #reservation()}, never below 0, and memory less the huge pages too. No pids.
   */
  public Amounts allocatable() {
    Amounts a = capacity.minus(reservation());
    return new Amounts(
        a.milliCpu(), Math.max(0, a.memoryBytes() - hugePagesBytes), a.ephemeralStorageBytes(), 0);
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
