package io.jkubelet.agent.cm;

import io.jkubelet.agent.systemd.Systemd;
import io.jkubelet.agent.systemd.SystemdException;
import io.jkubelet.agent.systemd.UnitProperty;
import io.jkubelet.agent.util.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The systemd cgroup driver's slices, made and limited through systemd as libcontainer's systemd
 * manager does: each cgroup of jkubelet's is a transient slice unit ({@code StartTransientUnit})
 * whose limits are unit properties, updated with {@code SetUnitProperties} and removed with {@code
 * StopUnit}. Reading (whether a slice exists, its processes, its children) goes to the cgroup files
 * through {@code files}, the {@link CgroupV1} or {@link CgroupV2} of the same file system.
 *
 * <p>Why not write the files, as the cgroupfs driver does: systemd owns a slice's cgroup and writes
 * its unit's properties into it again whenever it realizes the unit, e.g. when Docker starts a
 * container scope in it or on {@code systemctl daemon-reload}. Limits written only into the files
 * then go back to {@code max}. As properties of the unit they stay; a transient unit keeps them
 * across a daemon reload and until the next boot.
 *
 * <p>The properties (libcontainer's {@code genV2ResourcesProperties} and {@code
 * genV1ResourcesProperties}): {@code MemoryMax} (v1: {@code MemoryLimit}), {@code CPUWeight}
 * converted from shares (v1: {@code CPUShares}), {@code CPUQuotaPerSecUSec} rounded up to 10 ms
 * with {@code CPUQuotaPeriodUSec} from systemd 242, and {@code TasksMax}; -1 is {@code infinity}.
 * Accounting is on for memory, cpu, io and tasks, and {@code DefaultDependencies=no}.
 *
 * <p>A slice that exists already (jkubelet restarted, or Docker loaded it first) is adopted: its
 * properties are set again, as upstream re-applies them. Thread-safe: {@code applied} is a
 * concurrent map of what was last set on each slice, so that the frequent QoS updates do not call
 * systemd when nothing changed.
 */
final class SystemdCgroups implements CgroupManager {
  private static final long USEC_PER_SEC = 1_000_000;
  private static final long QUOTA_GRANULARITY = 10_000;

  /** systemd's first version with {@code CPUQuotaPeriodUSec}. */
  static final int CPU_QUOTA_PERIOD_SINCE = 242;

  static final String ROOT_SLICE = "-.slice";

  private final CgroupManager files;
  private final Systemd systemd;
  private final boolean v2;
  private final int systemdVersion;
  private final Map<CgroupName, ResourceConfig> applied = new ConcurrentHashMap<>();

  /**
   * @param files the file-based manager of the same file system, with the systemd driver
   * @param systemd a connected systemd
   * @param systemdVersion its version, for the properties it knows
   */
  SystemdCgroups(CgroupManager files, Systemd systemd, int systemdVersion) {
    this.files = files;
    this.systemd = systemd;
    this.v2 = files.version().equals("v2");
    this.systemdVersion = systemdVersion;
  }

  /** The slice unit's name, e.g. {@code kubepods-burstable.slice}. */
  static String unit(CgroupName name) {
    return CgroupDriver.SYSTEMD.dockerCgroupParent(name);
  }

  /** The parent slice's unit name, {@code -.slice} for a cgroup under the root. */
  static String parentUnit(CgroupName name) {
    List<String> c = name.components();
    return c.size() <= 1 ? ROOT_SLICE : unit(new CgroupName(c.subList(0, c.size() - 1)));
  }

  @Override
  public boolean exists(CgroupName name) {
    return files.exists(name);
  }

  /**
   * Starts the slice with {@code config}'s limits, or sets them on the loaded slice.
   *
   * @throws CgroupException with systemd's error
   */
  @Override
  public void create(CgroupName name, ResourceConfig config) {
    String unit = unit(name);
    List<UnitProperty> props = new ArrayList<>();
    props.add(UnitProperty.str("Description", "jkubelet cgroup " + name.toCgroupfs()));
    props.add(UnitProperty.strs("Wants", List.of(parentUnit(name))));
    props.add(UnitProperty.bool("MemoryAccounting", true));
    props.add(UnitProperty.bool("CPUAccounting", true));
    props.add(UnitProperty.bool("IOAccounting", true));
    props.add(UnitProperty.bool("TasksAccounting", true));
    props.add(UnitProperty.bool("DefaultDependencies", false));
    List<UnitProperty> resources = properties(config, v2, systemdVersion);
    props.addAll(resources);
    try {
      systemd.startTransientUnit(unit, props);
    } catch (SystemdException e) {
      if (!e.is(SystemdException.UNIT_EXISTS)) {
        throw failed(name, "cannot start the slice " + unit, e);
      }
      set(name, unit, resources);
    }
    applied.put(name, config);
  }

  /**
   * Sets {@code config}'s limits on the slice; starts it when systemd has not loaded it.
   *
   * @throws CgroupException with systemd's error
   */
  @Override
  public void update(CgroupName name, ResourceConfig config) {
    if (config.equals(applied.get(name))) {
      return;
    }
    List<UnitProperty> resources = properties(config, v2, systemdVersion);
    if (resources.isEmpty()) {
      return;
    }
    String unit = unit(name);
    try {
      systemd.setUnitProperties(unit, resources);
    } catch (SystemdException e) {
      if (!e.is(SystemdException.NO_SUCH_UNIT)) {
        throw failed(name, "cannot set the properties of " + unit, e);
      }
      create(name, config);
      return;
    }
    applied.put(name, config);
  }

  private void set(CgroupName name, String unit, List<UnitProperty> resources) {
    if (resources.isEmpty()) {
      return;
    }
    try {
      systemd.setUnitProperties(unit, resources);
    } catch (SystemdException e) {
      throw failed(name, "cannot set the properties of " + unit, e);
    }
  }

  private static CgroupException failed(CgroupName name, String what, SystemdException e) {
    return Errors.withCause(
        new CgroupException(CgroupDriver.SYSTEMD.path(name), what + ": " + e.getMessage()), e);
  }

  @Override
  public CgroupDriver driver() {
    return CgroupDriver.SYSTEMD;
  }

  /**
   * Stops the slice; then removes what systemd left of its cgroup, as libcontainer's {@code
   * Destroy}.
   */
  @Override
  public Removal removeIdle(CgroupName name, String cgroup) {
    boolean existed = files.exists(name);
    try {
      systemd.stopUnit(unit(name));
    } catch (SystemdException e) {
      return new Removal.Failed(
          cgroup, "cannot stop the slice " + unit(name) + ": " + e.getMessage());
    }
    applied.remove(name);
    Removal left = files.remove(name);
    return switch (left) {
      case Removal.Absent a -> existed ? new Removal.Removed(cgroup) : a;
      default -> left;
    };
  }

  @Override
  public List<Integer> pids(CgroupName name) {
    return files.pids(name);
  }

  @Override
  public List<CgroupName> children(CgroupName parent) {
    return files.children(parent);
  }

  @Override
  public String version() {
    return files.version();
  }

  /**
   * The unit properties of {@code config}, as libcontainer's: a value of 0 (or none) sets nothing;
   * -1 is {@code infinity}.
   */
  static List<UnitProperty> properties(ResourceConfig config, boolean v2, int systemdVersion) {
    List<UnitProperty> out = new ArrayList<>();
    OptionalLong memory = config.memoryLimit();
    if (memory.isPresent() && memory.getAsLong() != 0) {
      out.add(UnitProperty.u64(v2 ? "MemoryMax" : "MemoryLimit", limit(memory.getAsLong())));
    }
    OptionalLong shares = config.cpuShares();
    if (shares.isPresent() && shares.getAsLong() != 0) {
      out.add(
          v2
              ? UnitProperty.u64("CPUWeight", CpuUnits.sharesToWeight(shares.getAsLong()))
              : UnitProperty.u64("CPUShares", shares.getAsLong()));
    }
    long quota = config.cpuQuota().orElse(0);
    long period = config.cpuPeriod().orElse(0);
    if (period > 0 && systemdVersion >= CPU_QUOTA_PERIOD_SINCE) {
      out.add(UnitProperty.u64("CPUQuotaPeriodUSec", period));
    }
    if (quota != 0 || period != 0) {
      out.add(UnitProperty.u64("CPUQuotaPerSecUSec", quotaPerSecond(quota, period)));
    }
    OptionalLong pids = config.pidsLimit();
    if (pids.isPresent() && (pids.getAsLong() > 0 || pids.getAsLong() == -1)) {
      out.add(UnitProperty.bool("TasksAccounting", true));
      out.add(UnitProperty.u64("TasksMax", limit(pids.getAsLong())));
    }
    return out;
  }

  /**
   * libcontainer's {@code addCpuQuota}: the quota per second of cpu time, rounded up to 10 ms
   * (systemd's granularity); {@code infinity} for no quota.
   */
  static long quotaPerSecond(long quota, long period) {
    if (quota <= 0) {
      return UnitProperty.INFINITY;
    }
    long p = period == 0 ? CpuUnits.QUOTA_PERIOD : period;
    long perSec = quota * USEC_PER_SEC / p;
    if (perSec % QUOTA_GRANULARITY != 0) {
      perSec = (perSec / QUOTA_GRANULARITY + 1) * QUOTA_GRANULARITY;
    }
    return perSec;
  }

  private static long limit(long v) {
    return v < 0 ? UnitProperty.INFINITY : v;
  }
}
