package io.jkubelet.agent.cm;

import io.jkubelet.agent.node.NodeInfo;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.EvictionSettings;
import io.jkubelet.config.EvictionSettings.Signal;
import io.jkubelet.config.KubeletConfiguration;
import io.jkubelet.config.ReservationSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the pods' container manager for {@code run}: node allocatable from the host's capacity
 * ({@code kernel.pid_max} as its pids, less {@code kubeReserved} and {@code systemReserved}), and,
 * with {@code cgroupsPerQOS}, the check upstream's dockershim makes that Docker uses the same
 * cgroup driver. Builds only: the agent starts the manager.
 */
public final class ContainerManagers {
  private static final Logger log = LoggerFactory.getLogger(ContainerManagers.class);

  static final Path PID_MAX = Path.of("/proc/sys/kernel/pid_max");

  private ContainerManagers() {}

  /**
   * The container manager for {@code options} on this machine.
   *
   * @param engineDriver Docker's cgroup driver, asked only with {@code cgroupsPerQOS}
   * @throws ConfigException naming {@code --cgroup-driver} when Docker's driver is another
   */
  static ContainerManager create(
      CgroupOptions options, NodeInfo machine, Supplier<Optional<String>> engineDriver) {
    return create(options, machine, engineDriver, KubeletConfiguration.builder().build());
  }

  /** As above, with {@code config}'s reservations held back from {@code kubepods}. */
  public static ContainerManager create(
      CgroupOptions options,
      NodeInfo machine,
      Supplier<Optional<String>> engineDriver,
      KubeletConfiguration config) {
    if (!options.cgroupsPerQOS()) {
      return ContainerManager.NONE;
    }
    checkDriver(options.driver().flagValue(), engineDriver);
    return ContainerManager.create(options, allocatable(machine, pidMax(PID_MAX), config));
  }

  /**
   * Node allocatable: the capacity, {@code kubeReserved} and {@code systemReserved} (cpu, memory,
   * pid), and the hard {@code memory.available} threshold (a percentage taken of the memory).
   */
  static NodeAllocatable allocatable(NodeInfo machine, long pidMax, KubeletConfiguration config) {
    ReservationSettings r = config.reservations();
    long hardMemory =
        config
            .eviction()
            .hard(EvictionSettings.Signal.MEMORY_AVAILABLE)
            .map(t -> t.value().resolve(machine.memoryBytes()))
            .orElse(0L);
    return new NodeAllocatable(
        new NodeAllocatable.Amounts(machine.cpus() * 1000L, machine.memoryBytes(), pidMax),
        new NodeAllocatable.Amounts(r.kube("cpu"), r.kube("memory"), r.kube("pid")),
        new NodeAllocatable.Amounts(r.system("cpu"), r.system("memory"), r.system("pid")),
        hardMemory);
  }

  /** The node's capacity, nothing reserved: cpus, memory, and {@code pidMax} processes. */
  static NodeAllocatable allocatable(NodeInfo machine, long pidMax) {
    return NodeAllocatable.of(
        new NodeAllocatable.Amounts(machine.cpus() * 1000L, machine.memoryBytes(), pidMax));
  }

  /**
   * Refuses a driver other than Docker's, with upstream's message. An engine that does not answer
   * is not checked: the agent starts without it and its pods wait for it.
   */
  static void checkDriver(String driver, Supplier<Optional<String>> engineDriver) {
    Optional<String> engine;
    try {
      engine = engineDriver.get();
    } catch (RuntimeError e) {
      log.warn(
          "ContainerManager: cannot ask Docker for its cgroup driver ({}); assuming {}",
          e.getMessage(),
          driver);
      return;
    }
    if (engine.isPresent() && !engine.get().equals(driver)) {
      throw new ConfigException(
          "--cgroup-driver",
          "misconfiguration: kubelet cgroup driver: \""
              + driver
              + "\" is different from docker cgroup driver: \""
              + engine.get()
              + "\"");
    }
  }

  /**
   * {@code kernel.pid_max}, or 0 (no pids limit on {@code kubepods}) when it cannot be read. NOTE:
   * read by lines: the JDK's {@code Files.readString} returns only the first character of this file
   * (its size is reported as 0), and {@code kubepods} would then hold 3 processes.
   */
  static long pidMax(Path file) {
    try {
      return Long.parseLong(Files.readAllLines(file).get(0).trim());
    } catch (IOException | NumberFormatException | IndexOutOfBoundsException e) {
      log.warn(
          "ContainerManager: cannot read {} ({}); kubepods gets no pids limit", file, e.toString());
      return 0;
    }
  }

  /**
   * Upstream's {@code GetNodeAllocatableReservation}: for cpu, memory and ephemeral-storage, the
   * kube and system reservations plus the hard eviction threshold of {@code memory.available}
   * (memory) and {@code nodefs.available} (ephemeral-storage), percentages taken of the capacity.
   * Base units: thousandths of a core, bytes.
   */
  public static Map<String, Long> reservation(KubeletConfiguration config, NodeInfo machine) {
    ReservationSettings r = config.reservations();
    Map<String, Long> out = new LinkedHashMap<>();
    out.put("cpu", r.reserved("cpu"));
    long memory = r.reserved("memory");
    memory +=
        config
            .eviction()
            .hard(Signal.MEMORY_AVAILABLE)
            .map(t -> t.value().resolve(machine.memoryBytes()))
            .orElse(0L);
    out.put("memory", memory);
    long storage = r.reserved("ephemeral-storage");
    storage +=
        config
            .eviction()
            .hard(Signal.NODEFS_AVAILABLE)
            .map(t -> t.value().resolve(machine.ephemeralStorageBytes()))
            .orElse(0L);
    out.put("ephemeral-storage", storage);
    out.values().removeIf(v -> v == 0);
    return out;
  }

  /** Allocatable memory: capacity less the reservation and every hugepage size, at least 0. */
  public static long allocatableMemory(NodeInfo machine, Map<String, Long> reservation) {
    long m = machine.memoryBytes() - reservation.getOrDefault("memory", 0L);
    for (long huge : machine.hugePages().values()) {
      m -= huge;
    }
    return Math.max(0, m);
  }
}
