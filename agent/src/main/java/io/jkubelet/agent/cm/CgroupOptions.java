package io.jkubelet.agent.cm;

import io.jkubelet.config.ConfigException;
import io.jkubelet.config.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The container manager's settings: upstream's {@code cgroupsPerQOS}, {@code cgroupRoot}, {@code
 * cgroupDriver}, {@code cpuCFSQuota}, {@code cpuCFSQuotaPeriod}, {@code podPidsLimit} and {@code
 * enforceNodeAllocatable}, plus where the cgroup file system is. Validated in the constructor; an
 * error names the configuration field, which {@code cli.ResourceFlags} turns into the flag.
 *
 * @param cgroupsPerQOS whether pods get the QoS hierarchy and cgroups of their own (default true)
 * @param cgroupRoot the cgroup {@code kubepods} goes under, a cgroupfs path; "" is {@code /}, as
 *     upstream's kubelet defaults it with {@code cgroupsPerQOS}
 * @param cgroupDriver {@code cgroupfs} (default) or {@code systemd}
 * @param cpuCFSQuota whether cpu limits become CFS quotas (default true)
 * @param cpuCFSQuotaPeriod the CFS period, 1µs to 1s (default 100ms; upstream needs the
 *     CustomCPUCFSQuotaPeriod gate for another value, jkubelet has no gates)
 * @param podPidsLimit the most processes in a pod; a negative value is -1, none (default)
 * @param enforceNodeAllocatable {@code pods} (default) or {@code none}; {@code system-reserved} and
 *     {@code kube-reserved} need reserved cgroups, which jkubelet does not support yet
 * @param cgroupFs where the cgroup file system is mounted (default {@code /sys/fs/cgroup})
 */
public record CgroupOptions(
    boolean cgroupsPerQOS,
    String cgroupRoot,
    String cgroupDriver,
    boolean cpuCFSQuota,
    Duration cpuCFSQuotaPeriod,
    long podPidsLimit,
    List<String> enforceNodeAllocatable,
    Path cgroupFs) {

  public static final String PODS = "pods";
  public static final String NONE = "none";
  public static final Path DEFAULT_CGROUP_FS = Path.of("/sys/fs/cgroup");
  public static final Duration DEFAULT_CFS_PERIOD = Duration.ofMillis(100);

  private static final Set<String> ENFORCEMENTS =
      Set.of(PODS, "system-reserved", "kube-reserved", NONE);

  /** Upstream's defaults. */
  public static final CgroupOptions DEFAULTS =
      new CgroupOptions(
          true, "/", "cgroupfs", true, DEFAULT_CFS_PERIOD, -1, List.of(PODS), DEFAULT_CGROUP_FS);

  public CgroupOptions {
    Objects.requireNonNull(cgroupRoot, "cgroupRoot");
    Objects.requireNonNull(cpuCFSQuotaPeriod, "cpuCFSQuotaPeriod");
    Objects.requireNonNull(cgroupFs, "cgroupFs");
    enforceNodeAllocatable = List.copyOf(enforceNodeAllocatable);
    if (cgroupRoot.isEmpty()) {
      cgroupRoot = "/";
    }
    if (!cgroupRoot.startsWith("/")) {
      throw new ConfigException(
          "cgroupRoot", "must be an absolute cgroup path such as /, got \"" + cgroupRoot + "\"");
    }
    CgroupDriver.of(cgroupDriver);
    if (podPidsLimit < 0) {
      podPidsLimit = -1;
    }
    if (cpuCFSQuotaPeriod.compareTo(Duration.ofNanos(1000)) < 0
        || cpuCFSQuotaPeriod.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new ConfigException(
          "cpuCFSQuotaPeriod",
          "must be between 1µs and 1s, inclusive, got " + Durations.format(cpuCFSQuotaPeriod));
    }
    for (String e : enforceNodeAllocatable) {
      if (!ENFORCEMENTS.contains(e)) {
        throw new ConfigException(
            "enforceNodeAllocatable",
            "option \"" + e + "\" is not valid: use pods, system-reserved, kube-reserved or none");
      }
      if (!e.equals(PODS) && !e.equals(NONE)) {
        throw new ConfigException(
            "enforceNodeAllocatable",
            "\""
                + e
                + "\" needs "
                + (e.equals("kube-reserved") ? "kubeReservedCgroup" : "systemReservedCgroup")
                + ", which jkubelet does not support yet");
      }
    }
    if (enforceNodeAllocatable.contains(NONE) && enforceNodeAllocatable.size() > 1) {
      throw new ConfigException(
          "enforceNodeAllocatable", "may not contain other enforcements when 'none' is given");
    }
    if (!cgroupsPerQOS && !enforceNodeAllocatable.isEmpty()) {
      throw new ConfigException(
          "enforceNodeAllocatable",
          "is not supported unless cgroupsPerQOS is true: with --cgroups-per-qos=false, give"
              + " --enforce-node-allocatable= (an empty list) too");
    }
  }

  /** The driver. */
  public CgroupDriver driver() {
    return CgroupDriver.of(cgroupDriver);
  }

  /** Whether {@code kubepods} is limited to node allocatable ({@code pods} is enforced). */
  public boolean enforcesPods() {
    return enforcesPods(enforceNodeAllocatable);
  }

  private static boolean enforcesPods(List<String> enforcements) {
    return enforcements.contains(PODS);
  }

  /** The CFS period in microseconds. */
  public long cpuPeriodMicros() {
    return cpuCFSQuotaPeriod.toNanos() / 1000;
  }

  /** The cgroup of all pods: {@code kubepods} under {@link #cgroupRoot}. */
  public CgroupName kubepods() {
    return CgroupName.parseCgroupfs(cgroupRoot).child("kubepods");
  }
}
