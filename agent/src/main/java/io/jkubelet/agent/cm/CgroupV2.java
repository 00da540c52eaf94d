package io.jkubelet.agent.cm;

import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * cgroup v2: one unified hierarchy at the file system root, as upstream's v1.20 cgroup manager
 * drives runc's {@code fs2}. Before a cgroup is written, the controllers jkubelet uses ({@code
 * cpuset cpu memory hugetlb pids}, those the root offers) are enabled in {@code
 * cgroup.subtree_control} from the root down to its parent (upstream's {@code
 * propagateControllers}). Values are converted as upstream converts them: {@code cpu.shares} to
 * {@code cpu.weight} ({@link CpuUnits#sharesToWeight}), quota and period to {@code cpu.max} ({@code
 * max} for no quota), the memory limit to {@code memory.max}, pids to {@code pids.max} ({@code max}
 * for -1).
 */
final class CgroupV2 implements CgroupManager {
  static final String CONTROLLERS = "cgroup.controllers";
  static final String SUBTREE_CONTROL = "cgroup.subtree_control";
  private static final Set<String> SUPPORTED = Set.of("cpuset", "cpu", "memory", "hugetlb", "pids");

  private final Path root;
  private final CgroupDriver driver;
  private final CgroupFiles.Rmdir rmdir;

  CgroupV2(Path root, CgroupDriver driver, CgroupFiles.Rmdir rmdir) {
    this.root = root;
    this.driver = driver;
    this.rmdir = rmdir;
  }

  private Path dir(CgroupName name) {
    String path = driver.path(name);
    return path.equals("/") ? root : root.resolve(path.substring(1));
  }

  @Override
  public boolean exists(CgroupName name) {
    return Files.isDirectory(dir(name));
  }

  @Override
  public void create(CgroupName name, ResourceConfig config) {
    update(name, config);
  }

  @Override
  public void update(CgroupName name, ResourceConfig config) {
    String cgroup = driver.path(name);
    Path dir = dir(name);
    CgroupFiles.mkdir(cgroup, dir);
    enableControllers(cgroup, dir);
    OptionalLong shares = config.cpuShares();
    if (shares.isPresent() && shares.getAsLong() != 0) {
      CgroupFiles.write(
          cgroup, dir, "cpu.weight", Long.toString(CpuUnits.sharesToWeight(shares.getAsLong())));
    }
    long quota = config.cpuQuota().orElse(0);
    long period = config.cpuPeriod().orElse(0);
    if (quota != 0 || period != 0) {
      String max = quota > 0 ? Long.toString(quota) : "max";
      CgroupFiles.write(
          cgroup, dir, "cpu.max", max + " " + (period == 0 ? CpuUnits.QUOTA_PERIOD : period));
    }
    limit(cgroup, dir, "memory.max", config.memoryLimit());
    limit(cgroup, dir, "pids.max", config.pidsLimit());
  }

  /** runc's {@code numToStr}: 0 leaves the file alone, -1 (or less) is {@code max}. */
  private static void limit(String cgroup, Path dir, String file, OptionalLong value) {
    if (value.isPresent() && value.getAsLong() != 0) {
      long v = value.getAsLong();
      CgroupFiles.write(cgroup, dir, file, v < 0 ? "max" : Long.toString(v));
    }
  }

  private void enableControllers(String cgroup, Path dir) {
    String available =
        CgroupFiles.read(root.resolve(CONTROLLERS))
            .orElseThrow(
                () -> new CgroupException(cgroup, "cannot read " + root.resolve(CONTROLLERS)));
    List<String> enable = new ArrayList<>();
    for (String c : available.split("\\s+")) {
      if (SUPPORTED.contains(c)) {
        enable.add("+" + c);
      }
    }
    String line = String.join(" ", enable);
    List<Path> levels = new ArrayList<>();
    for (Path p = dir.getParent(); p != null && p.startsWith(root); p = p.getParent()) {
      levels.add(0, p);
    }
    for (Path level : levels) {
      CgroupFiles.write(cgroup, level, SUBTREE_CONTROL, line);
    }
  }

  @Override
  public CgroupDriver driver() {
    return driver;
  }

  @Override
  public Removal removeIdle(CgroupName name, String cgroup) {
    Path dir = dir(name);
    if (!Files.isDirectory(dir)) {
      return new Removal.Absent(cgroup);
    }
    try {
      CgroupFiles.removeTree(dir, rmdir);
      return new Removal.Removed(cgroup);
    } catch (IOException e) {
      return new Removal.Failed(cgroup, "rmdir " + dir + ": " + CgroupFiles.describe(e));
    }
  }

  @Override
  public List<Integer> pids(CgroupName name) {
    return CgroupFiles.pids(driver.path(name), List.of(dir(name)));
  }

  @Override
  public List<CgroupName> children(CgroupName parent) {
    String parentPath = driver.path(parent);
    List<CgroupName> out = new ArrayList<>();
    try {
      for (Path child : CgroupFiles.childDirs(dir(parent))) {
        String base = child.getFileName().toString();
        out.add(driver.parse(parentPath.equals("/") ? "/" + base : parentPath + "/" + base));
      }
    } catch (IOException e) {
      throw Errors.withCause(
          new CgroupException(parentPath, "cannot list: " + CgroupFiles.describe(e)), e);
    }
    return out;
  }

  @Override
  public String version() {
    return "v2";
  }
}
