package io.jkubelet.agent.cm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Makes, writes and removes cgroups in one cgroup file system, as upstream's {@code CgroupManager}:
 * {@link CgroupV1} for separate hierarchies per controller, {@link CgroupV2} for the unified one.
 * Names are turned into paths by the {@link CgroupDriver}. Implementations hold no state beyond
 * their paths and are thread-safe as the file system is.
 */
interface CgroupManager {
  /** Whether the cgroup exists (in every hierarchy that matters, on v1). */
  boolean exists(CgroupName name);

  /** Makes the cgroup (and missing ancestors) and writes {@code config}. */
  void create(CgroupName name, ResourceConfig config);

  /** Writes {@code config} into an existing cgroup; an empty value leaves its file alone. */
  void update(CgroupName name, ResourceConfig config);

  /**
   * Removes the cgroup and the cgroups below it (a runtime's container cgroups), unless processes
   * are left in any of them. Every manager makes that check here, then {@link #removeIdle}.
   */
  default Removal remove(CgroupName name) {
    String cgroup = driver().path(name);
    List<Integer> pids;
    try {
      pids = pids(name);
    } catch (CgroupException e) {
      return new Removal.Failed(cgroup, e.reason());
    }
    return pids.isEmpty() ? removeIdle(name, cgroup) : new Removal.Busy(cgroup, pids);
  }

  /**
   * Removes a cgroup in which and below which {@link #remove} found no processes.
   *
   * @param cgroup its driver path, for the {@link Removal}
   */
  Removal removeIdle(CgroupName name, String cgroup);

  /** How this manager turns names into paths. */
  CgroupDriver driver();

  /** The processes in the cgroup and below it, sorted. */
  List<Integer> pids(CgroupName name);

  /** The cgroups directly below {@code parent}, in any hierarchy. */
  List<CgroupName> children(CgroupName parent);

  /** {@code v1} or {@code v2}. */
  String version();

  /**
   * The manager for the file system mounted at {@code fsRoot}: cgroup v2 when {@code fsRoot} holds
   * {@code cgroup.controllers} (only a unified mount does), v1 otherwise.
   *
   * @throws CgroupException when {@code fsRoot} is not a directory
   */
  static CgroupManager detect(Path fsRoot, CgroupDriver driver, CgroupFiles.Rmdir rmdir) {
    if (!Files.isDirectory(fsRoot)) {
      throw new CgroupException("/", "no cgroup file system at " + fsRoot);
    }
    if (Files.isRegularFile(fsRoot.resolve(CgroupV2.CONTROLLERS))) {
      return new CgroupV2(fsRoot, driver, rmdir);
    }
    return CgroupV1.mounted(fsRoot, driver, rmdir);
  }
}
