package io.jkubelet.agent.cm;

import io.jkubelet.agent.node.NodeInfo;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.util.KernelFiles;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.KubeletConfiguration;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the pods' container manager for {@code run}: node allocatable from the host's capacity
 * ({@code kernel.pid_max} as its pids, less {@code kubeReserved} and {@code systemReserved}), and,
 * with {@code cgroupsPerQOS}, the cgroup driver: Docker's when none is given, else the check
 * upstream's dockershim makes that Docker uses the same; before them, upstream's swap check ({@code
 * failSwapOn}). Builds only: the agent starts the manager.
 */
public final class ContainerManagers {
  private static final Logger log = LoggerFactory.getLogger(ContainerManagers.class);

  static final Path PID_MAX = Path.of("/proc/sys/kernel/pid_max");

  private ContainerManagers() {}

  /**
   * The container manager for {@code options} on this machine, {@code config}'s reservations held
   * back from {@code kubepods}; first, with {@code failSwapOn}, upstream's swap check.
   *
   * @param engineDriver Docker's cgroup driver, asked only with {@code cgroupsPerQOS}
   * @throws ConfigException naming {@code --cgroup-driver} when the driver given is not Docker's,
   *     or when none is given and Docker's is one jkubelet does not know
   * @throws SwapOnException when the host has swap on and {@code failSwapOn} is true
   */
  public static ContainerManager create(
      CgroupOptions options,
      NodeInfo machine,
      Supplier<Optional<String>> engineDriver,
      KubeletConfiguration config) {
    if (config.node().host().failSwapOn()) {
      Swap.check(Swap.PROC_SWAPS);
    }
    if (!options.cgroupsPerQOS()) {
      return ContainerManager.NONE;
    }
    return ContainerManager.create(
        withDriver(options, engineDriver),
        NodeAllocatable.of(
            machine,
            pidMax(PID_MAX),
            config.resources().reservations(),
            config.resources().eviction()));
  }

  /**
   * The options with their cgroup driver settled, and logged with where it came from. Docker's own
   * driver wins, as upstream v1.28+ takes the runtime's (KubeletCgroupDriverFromCRI): none given
   * takes it, and a driver given (flag or file) that is not Docker's is overridden with a warning
   * that names both. Upstream v1.20 exits there instead ({@code misconfiguration: kubelet cgroup
   * driver ... is different from docker cgroup driver}), and under systemd's {@code Restart=} that
   * is a restart loop; it happens to every node that {@code kubeadm join} gives the cluster's
   * {@code cgroupDriver} when its Docker has another, since kubeadm v1.20 takes the driver from
   * Docker only on {@code init}. An engine that does not answer is not checked: the agent starts
   * without it and its pods wait for it; the driver is then the one given, else upstream's default,
   * {@code cgroupfs}.
   */
  static CgroupOptions withDriver(CgroupOptions options, Supplier<Optional<String>> engineDriver) {
    String given = options.cgroupDriver();
    Optional<String> engine;
    try {
      engine = engineDriver.get();
    } catch (RuntimeError e) {
      CgroupDriver assumed = options.driver();
      log.warn(
          "ContainerManager: cannot ask Docker for its cgroup driver ({}); using {}{}",
          e.getMessage(),
          assumed.flagValue(),
          given.isEmpty() ? ", upstream's default" : ", as given");
      return options.withDriver(assumed);
    }
    if (!given.isEmpty()) {
      if (engine.isEmpty() || engine.get().equals(given)) {
        log.info(
            "ContainerManager: cgroup driver {}, as given ({})",
            given,
            engine.isEmpty() ? "Docker does not say its own" : "Docker's is the same");
        return options;
      }
      log.warn(
          "ContainerManager: cgroup driver: the configured \"{}\" is different from docker cgroup"
              + " driver: \"{}\"; using Docker's, as upstream v1.28+ uses the runtime's (upstream"
              + " v1.20 exits here: set cgroupDriver to \"{}\" in the configuration to silence"
              + " this)",
          given,
          engine.get(),
          engine.get());
    }
    if (engine.isEmpty()) {
      log.warn(
          "ContainerManager: Docker does not say its cgroup driver; using cgroupfs, upstream's"
              + " default (set --cgroup-driver to choose)");
      return options.withDriver(CgroupDriver.CGROUPFS);
    }
    CgroupDriver driver;
    try {
      driver = CgroupDriver.of(engine.get());
    } catch (ConfigException e) {
      throw new ConfigException(
          "--cgroup-driver",
          "docker cgroup driver: \""
              + engine.get()
              + "\" is not supported: jkubelet needs cgroupfs or systemd");
    }
    if (given.isEmpty()) {
      log.info(
          "ContainerManager: cgroup driver {}, Docker's (docker info; --cgroup-driver not given)",
          driver.flagValue());
    }
    return options.withDriver(driver);
  }

  /**
   * {@code kernel.pid_max}, or 0 (no pids limit on {@code kubepods}) when it cannot be read. NOTE:
   * read by {@link KernelFiles}: the JDK's {@code Files.readString} returns only the first
   * character of this file (its size is reported as 0), and {@code kubepods} would then hold 3
   * processes.
   */
  static long pidMax(Path file) {
    try {
      return KernelFiles.number(file);
    } catch (IOException e) {
      log.warn(
          "ContainerManager: cannot read {} ({}); kubepods gets no pids limit", file, e.toString());
      return 0;
    }
  }
}
