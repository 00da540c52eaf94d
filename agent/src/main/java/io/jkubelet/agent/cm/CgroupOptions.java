package io.jkubelet.agent.cm;

import io.jkubelet.config.CgroupSettings;
import io.jkubelet.config.Records;
import io.jkubelet.config.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The container manager's settings: the configuration's {@link CgroupSettings} ({@code
 * cgroupsPerQOS}, {@code cgroupRoot}, {@code cgroupDriver}, {@code cpuCFSQuota}, {@code
 * cpuCFSQuotaPeriod}, {@code podPidsLimit}, {@code enforceNodeAllocatable}), plus where the cgroup
 * file system is. Validated in the constructor by the settings' declarations; an error names the
 * configuration field, which {@code cli} turns into the flag.
 *
 * @param settings the cgroup settings, as configured
 * @param cgroupFs where the cgroup file system is mounted (default {@code /sys/fs/cgroup})
 */
public record CgroupOptions(CgroupSettings settings, Path cgroupFs) {

  public static final String PODS = "pods";
  public static final String NONE = "none";
  public static final Path DEFAULT_CGROUP_FS = Path.of("/sys/fs/cgroup");
  public static final Duration DEFAULT_CFS_PERIOD = CgroupSettings.DEFAULTS.cpuCFSQuotaPeriod();

  /** Upstream's defaults. */
  public static final CgroupOptions DEFAULTS =
      new CgroupOptions(CgroupSettings.DEFAULTS, DEFAULT_CGROUP_FS);

  /**
   * @throws io.jkubelet.config.ConfigException naming the field of a setting out of its range
   */
  public CgroupOptions {
    Records.requireNonNull(CgroupOptions.class, settings, cgroupFs);
    Settings.validate(settings);
  }

  /** Whether pods get the QoS hierarchy and cgroups of their own (default true). */
  public boolean cgroupsPerQOS() {
    return settings.cgroupsPerQOS();
  }

  /** The cgroup {@code kubepods} goes under, a cgroupfs path; "" is {@code /}, as upstream's. */
  public String cgroupRoot() {
    return settings.cgroupRoot().isEmpty() ? "/" : settings.cgroupRoot();
  }

  /**
   * {@code cgroupfs} or {@code systemd} as configured; "" when not given, which {@link
   * ContainerManagers} resolves from the engine ({@link #withDriver}).
   */
  public String cgroupDriver() {
    return settings.cgroupDriver();
  }

  /** These options with {@code driver}, as the settings' {@code cgroupDriver}. */
  public CgroupOptions withDriver(CgroupDriver driver) {
    return new CgroupOptions(
        Settings.build(
            CgroupSettings.class,
            s -> s.name().equals("cgroupDriver") ? driver.flagValue() : Settings.read(settings, s)),
        cgroupFs);
  }

  /** Whether cpu limits become CFS quotas (default true). */
  public boolean cpuCFSQuota() {
    return settings.cpuCFSQuota();
  }

  /** The CFS period, 1µs to 1s (default 100ms). */
  public Duration cpuCFSQuotaPeriod() {
    return settings.cpuCFSQuotaPeriod();
  }

  /** The most processes in a pod; -1 (a negative value as upstream defaults it): none. */
  public long podPidsLimit() {
    return settings.podPidsLimit() < 0 ? -1 : settings.podPidsLimit();
  }

  /** {@code pods} (default) or {@code none}, or nothing. */
  public List<String> enforceNodeAllocatable() {
    return settings.enforceNodeAllocatable();
  }

  /**
   * The driver. NOTE: one not given reads as {@code cgroupfs}, upstream v1.20's default, until
   * {@link ContainerManagers} has taken the engine's ({@link #withDriver}); the container manager
   * is built with the resolved options.
   */
  public CgroupDriver driver() {
    return settings.cgroupDriver().isEmpty()
        ? CgroupDriver.CGROUPFS
        : CgroupDriver.of(settings.cgroupDriver());
  }

  /** Whether {@code kubepods} is limited to node allocatable ({@code pods} is enforced). */
  public boolean enforcesPods() {
    return settings.enforceNodeAllocatable().contains(PODS);
  }

  /** The CFS period in microseconds. */
  public long cpuPeriodMicros() {
    return settings.cpuCFSQuotaPeriod().toNanos() / 1000;
  }

  /** The cgroup of all pods: {@code kubepods} under {@link #cgroupRoot}. */
  public CgroupName kubepods() {
    return CgroupName.parseCgroupfs(cgroupRoot()).child("kubepods");
  }
}
