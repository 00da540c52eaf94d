package io.jkubelet.agent.cm;

import io.jkubelet.agent.node.NodeInfo;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.KubeletConfiguration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
   * The container manager for {@code options} on this machine, {@code config}'s reservations held
   * back from {@code kubepods}.
   *
   * @param engineDriver Docker's cgroup driver, asked only with {@code cgroupsPerQOS}
   * @throws ConfigException naming {@code --cgroup-driver} when Docker's driver is another
   */
  public static ContainerManager create(
      CgroupOptions options,
      NodeInfo machine,
      Supplier<Optional<String>> engineDriver,
      KubeletConfiguration config) {
    if (!options.cgroupsPerQOS()) {
      return ContainerManager.NONE;
    }
    checkDriver(options.driver().flagValue(), engineDriver);
    return ContainerManager.create(
        options,
        NodeAllocatable.of(machine, pidMax(PID_MAX), config.reservations(), config.eviction()));
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
}
