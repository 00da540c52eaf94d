package io.jkubelet.agent.cm;

import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * cgroup v1: one hierarchy per controller (or per group of controllers, {@code cpu,cpuacct}) under
 * the file system root, as runc's {@code fs} manager that upstream's cgroup manager drives. A
 * cgroup is a directory of the same path in each hierarchy.
 *
 * <ul>
 *   <li>create makes the directory in every hierarchy (runc's {@code Apply(-1)}), copying {@code
 *       cpuset.cpus} and {@code cpuset.mems} down into new cpuset cgroups, which the kernel leaves
 *       empty and which no process could join;
 *   <li>update writes {@code cpu.shares}, {@code cpu.cfs_period_us}, {@code cpu.cfs_quota_us},
 *       {@code memory.limit_in_bytes} and {@code pids.max}; cpu, memory and pids are required
 *       (upstream's {@code setSupportedSubsystemsV1});
 *   <li>remove is {@code rmdir} in every hierarchy.
 * </ul>
 */
final class CgroupV1 implements CgroupManager {
  /** The controllers runc's fs manager knows, and the named systemd hierarchy. */
  private static final Set<String> KNOWN =
      Set.of(
          "cpu",
          "cpuacct",
          "cpuset",
          "memory",
          "pids",
          "hugetlb",
          "blkio",
          "devices",
          "freezer",
          "net_cls",
          "net_prio",
          "perf_event",
          "rdma",
          "systemd");

  /** The hierarchies upstream's {@code Exists} looks at. */
  private static final Set<String> CHECKED =
      Set.of("cpu", "cpuacct", "cpuset", "memory", "systemd", "pids", "hugetlb");

  private static final List<String> REQUIRED = List.of("cpu", "memory", "pids");

  private final Map<String, Path> mounts;
  private final CgroupDriver driver;
  private final CgroupFiles.Rmdir rmdir;

  /**
   * @param mounts controller to its hierarchy's directory; controllers mounted together map to the
   *     same directory
   */
  CgroupV1(Map<String, Path> mounts, CgroupDriver driver, CgroupFiles.Rmdir rmdir) {
    this.mounts = Map.copyOf(mounts);
    this.driver = driver;
    this.rmdir = rmdir;
  }

  /** The hierarchies found under {@code fsRoot}, by directory name ({@code cpu,cpuacct} too). */
  static CgroupV1 mounted(Path fsRoot, CgroupDriver driver, CgroupFiles.Rmdir rmdir) {
    Map<String, Path> mounts = new LinkedHashMap<>();
    Map<Path, Path> byRealPath = new LinkedHashMap<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(fsRoot, Files::isDirectory)) {
      List<Path> dirs = new ArrayList<>();
      s.forEach(dirs::add);
      dirs.sort(null);
      for (Path dir : dirs) {
        Path mount = byRealPath.computeIfAbsent(real(dir), r -> dir);
        for (String controller : dir.getFileName().toString().split(",")) {
          if (KNOWN.contains(controller)) {
            mounts.putIfAbsent(controller, mount);
          }
        }
      }
    } catch (IOException e) {
      throw Errors.withCause(
          new CgroupException("/", "cannot list " + fsRoot + ": " + CgroupFiles.describe(e)), e);
    }
    return new CgroupV1(mounts, driver, rmdir);
  }

  private static Path real(Path dir) {
    try {
      return dir.toRealPath();
    } catch (IOException e) {
      return dir;
    }
  }

  /** The distinct hierarchy directories. */
  private Set<Path> hierarchies() {
    return new LinkedHashSet<>(mounts.values());
  }

  private Path dir(String controller, CgroupName name) {
    return under(mounts.get(controller), name);
  }

  private Path under(Path mount, CgroupName name) {
    String path = driver.path(name);
    return path.equals("/") ? mount : mount.resolve(path.substring(1));
  }

  @Override
  public boolean exists(CgroupName name) {
    for (Map.Entry<String, Path> m : mounts.entrySet()) {
      if (CHECKED.contains(m.getKey()) && !Files.isDirectory(under(m.getValue(), name))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void create(CgroupName name, ResourceConfig config) {
    String cgroup = driver.path(name);
    for (Path mount : hierarchies()) {
      Path dir = under(mount, name);
      if (mount.equals(mounts.get("cpuset"))) {
        createCpuset(cgroup, mount, dir);
      } else {
        CgroupFiles.mkdir(cgroup, dir);
      }
    }
    update(name, config);
  }

  /** Makes each missing level, giving it its parent's cpus and mems (runc's ensureParent). */
  private static void createCpuset(String cgroup, Path mount, Path dir) {
    List<Path> levels = new ArrayList<>();
    for (Path p = dir; p != null && !p.equals(mount); p = p.getParent()) {
      levels.add(0, p);
    }
    for (Path level : levels) {
      CgroupFiles.mkdir(cgroup, level);
      for (String file : List.of("cpuset.cpus", "cpuset.mems")) {
        if (CgroupFiles.read(level.resolve(file)).orElse("").isEmpty()) {
          String parent = CgroupFiles.read(level.getParent().resolve(file)).orElse("");
          if (!parent.isEmpty()) {
            CgroupFiles.write(cgroup, level, file, parent);
          }
        }
      }
    }
  }

  @Override
  public void update(CgroupName name, ResourceConfig config) {
    String cgroup = driver.path(name);
    for (String controller : REQUIRED) {
      if (!mounts.containsKey(controller)) {
        throw new CgroupException(
            cgroup, "no cgroup v1 hierarchy for the required controller " + controller);
      }
    }
    Path cpu = dir("cpu", name);
    nonZero(config.cpuShares()).ifPresent(v -> write(cgroup, cpu, "cpu.shares", v));
    nonZero(config.cpuPeriod()).ifPresent(v -> write(cgroup, cpu, "cpu.cfs_period_us", v));
    nonZero(config.cpuQuota()).ifPresent(v -> write(cgroup, cpu, "cpu.cfs_quota_us", v));
    nonZero(config.memoryLimit())
        .ifPresent(v -> write(cgroup, dir("memory", name), "memory.limit_in_bytes", v));
    nonZero(config.pidsLimit())
        .ifPresent(
            v ->
                CgroupFiles.write(
                    cgroup, dir("pids", name), "pids.max", v > 0 ? Long.toString(v) : "max"));
  }

  /** runc writes a value only when it is not 0 (0 means unset). */
  private static OptionalLong nonZero(OptionalLong v) {
    return v.isPresent() && v.getAsLong() != 0 ? v : OptionalLong.empty();
  }

  private static void write(String cgroup, Path dir, String file, long value) {
    CgroupFiles.write(cgroup, dir, file, Long.toString(value));
  }

  @Override
  public CgroupDriver driver() {
    return driver;
  }

  @Override
  public Removal removeIdle(CgroupName name, String cgroup) {
    boolean found = false;
    List<String> failures = new ArrayList<>();
    for (Path mount : hierarchies()) {
      Path dir = under(mount, name);
      if (!Files.isDirectory(dir)) {
        continue;
      }
      found = true;
      try {
        CgroupFiles.removeTree(dir, rmdir);
      } catch (IOException e) {
        failures.add("rmdir " + dir + ": " + CgroupFiles.describe(e));
      }
    }
    if (!failures.isEmpty()) {
      return new Removal.Failed(cgroup, String.join("; ", failures));
    }
    return found ? new Removal.Removed(cgroup) : new Removal.Absent(cgroup);
  }

  @Override
  public List<Integer> pids(CgroupName name) {
    return CgroupFiles.pids(
        driver.path(name), hierarchies().stream().map(mount -> under(mount, name)).toList());
  }

  @Override
  public List<CgroupName> children(CgroupName parent) {
    String parentPath = driver.path(parent);
    Set<CgroupName> out = new LinkedHashSet<>();
    for (Path mount : hierarchies()) {
      try {
        for (Path child : CgroupFiles.childDirs(under(mount, parent))) {
          String base = child.getFileName().toString();
          out.add(driver.parse(parentPath.equals("/") ? "/" + base : parentPath + "/" + base));
        }
      } catch (IOException e) {
        throw Errors.withCause(
            new CgroupException(parentPath, "cannot list: " + CgroupFiles.describe(e)), e);
      }
    }
    return List.copyOf(out);
  }

  @Override
  public String version() {
    return "v1";
  }
}
