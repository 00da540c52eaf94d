package io.jkubelet.agent.cm;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.systemd.Systemd;
import io.jkubelet.agent.systemd.SystemdException;
import io.jkubelet.agent.util.Errors;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ContainerManager} with {@code cgroupsPerQOS}. {@link #start()} finds the cgroup version,
 * checks that {@code cgroupRoot} exists (upstream refuses to start otherwise), makes or updates
 * {@code kubepods} with node allocatable's limits and makes the QoS tiers. With the systemd driver
 * it connects to systemd first and makes every cgroup a slice unit ({@link SystemdCgroups}); {@link
 * #stop()} closes that connection.
 *
 * <p>Thread-safe: {@code started} is volatile and set once {@link #start()} succeeded; the parts it
 * holds are thread-safe.
 */
final class QosContainerManager implements ContainerManager {
  private static final Logger log = LoggerFactory.getLogger(QosContainerManager.class);

  private final CgroupOptions options;
  private final NodeAllocatable node;
  private final CgroupFiles.Rmdir rmdir;
  private final Supplier<Systemd> systemd;
  private volatile Started started;
  private volatile Health health = Health.failing("not started");

  /** What {@link #start()} made; {@code systemd} is null with the cgroupfs driver. */
  private record Started(CgroupManager cgroups, QosCgroups qos, PodCgroups pods, Systemd systemd) {}

  /**
   * @param systemd connects to systemd, asked in {@link #start()} only with the systemd driver
   */
  QosContainerManager(
      CgroupOptions options,
      NodeAllocatable node,
      CgroupFiles.Rmdir rmdir,
      Supplier<Systemd> systemd) {
    this.options = options;
    this.node = node;
    this.rmdir = rmdir;
    this.systemd = systemd;
  }

  /**
   * @throws CgroupException when the cgroup file system, {@code cgroupRoot} or a cgroup of
   *     jkubelet's is missing or cannot be written
   */
  @Override
  public void start() {
    CgroupDriver driver = options.driver();
    Systemd connected = null;
    try {
      CgroupManager cgroups = CgroupManager.detect(options.cgroupFs(), driver, rmdir);
      if (driver == CgroupDriver.SYSTEMD) {
        connected = connectSystemd();
        cgroups = new SystemdCgroups(cgroups, connected, connected.version());
      }
      CgroupName root = CgroupName.parseCgroupfs(options.cgroupRoot());
      if (!cgroups.exists(root)) {
        throw new CgroupException(driver.path(root), "cgroupRoot does not exist");
      }
      CgroupName kubepods = options.kubepods();
      ResourceConfig limits = node.kubepodsConfig(options.enforcesPods());
      if (cgroups.exists(kubepods)) {
        cgroups.update(kubepods, limits);
      } else {
        cgroups.create(kubepods, limits);
      }
      QosCgroups qos = new QosCgroups(cgroups, kubepods);
      qos.ensure();
      PodCgroups pods = new PodCgroups(cgroups, qos, options);
      started = new Started(cgroups, qos, pods, connected);
      health = Health.OK;
      log.info(
          "ContainerManager: cgroup {} with the {} driver; {} limited to {}",
          cgroups.version(),
          driver.flagValue(),
          driver.path(kubepods),
          limits);
    } catch (CgroupException | SystemdException e) {
      if (connected != null) {
        connected.close();
      }
      health = Health.failing(e.getMessage());
      throw e instanceof CgroupException c
          ? c
          : Errors.withCause(new CgroupException("/", "cannot use systemd: " + e.getMessage()), e);
    }
  }

  private Systemd connectSystemd() {
    try {
      return systemd.get();
    } catch (SystemdException e) {
      throw Errors.withCause(
          new CgroupException(
              "/", "the systemd cgroup driver needs systemd's D-Bus API: " + e.getMessage()),
          e);
    }
  }

  @Override
  public void stop() {
    health = Health.failing("stopped");
    Started s = started;
    if (s != null && s.systemd() != null) {
      s.systemd().close();
    }
  }

  @Override
  public Health healthy() {
    return health;
  }

  private Started started() {
    Started s = started;
    if (s == null) {
      throw new IllegalStateException("ContainerManager is not started");
    }
    return s;
  }

  @Override
  public String cgroupParent(Pod pod) {
    return started().pods().cgroupParent(pod);
  }

  @Override
  public boolean exists(Pod pod) {
    return started().pods().exists(pod);
  }

  @Override
  public String podCgroupRoot() {
    return options.driver().path(options.kubepods());
  }

  @Override
  public List<String> podCgroupPaths(String uid) {
    QosCgroups tiers = new QosCgroups(null, options.kubepods());
    List<String> out = new java.util.ArrayList<>();
    for (QosClass q : QosClass.values()) {
      out.add(options.driver().path(tiers.parent(q).child(PodCgroups.PREFIX + uid)));
    }
    return out;
  }

  @Override
  public void ensurePod(Pod pod) {
    started().pods().ensure(pod);
  }

  @Override
  public List<Removal> cleanup(Set<String> activeUids) {
    List<Removal> removals = started().pods().cleanup(activeUids);
    for (Removal r : removals) {
      switch (r) {
        case Removal.Removed x ->
            log.info("ContainerManager: removed the cgroup {} of an orphaned pod", x.cgroup());
        case Removal.Absent x -> {}
        case Removal.Busy x ->
            log.info(
                "ContainerManager: the cgroup {} of an orphaned pod still has processes {};"
                    + " trying again later",
                x.cgroup(),
                x.pids());
        case Removal.Failed x ->
            log.warn(
                "ContainerManager: cannot remove the cgroup {} of an orphaned pod: {}",
                x.cgroup(),
                x.reason());
      }
    }
    return removals;
  }

  @Override
  public void updateQos(Collection<Pod> activePods) {
    started().qos().update(activePods);
  }
}
