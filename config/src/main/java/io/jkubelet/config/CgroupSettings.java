package io.jkubelet.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The container manager's fields of upstream's KubeletConfiguration: the pods' cgroups. Values are
 * checked where they are used ({@code cm.CgroupOptions}); this record only rejects nulls.
 *
 * @param cgroupsPerQOS whether pods get the QoS cgroup hierarchy and cgroups of their own; default
 *     true
 * @param cgroupRoot the cgroup the pods' hierarchy goes under; default "" (the root, {@code /})
 * @param cgroupDriver {@code cgroupfs} (default) or {@code systemd}
 * @param cpuCFSQuota whether cpu limits are enforced with CFS quotas; default true
 * @param cpuCFSQuotaPeriod the CFS period; default 100ms
 * @param podPidsLimit the most processes in a pod; default -1 (none); a negative value is -1
 * @param enforceNodeAllocatable which reservations are enforced with cgroups; default {@code
 *     [pods]}
 */
public record CgroupSettings(
    boolean cgroupsPerQOS,
    String cgroupRoot,
    String cgroupDriver,
    boolean cpuCFSQuota,
    Duration cpuCFSQuotaPeriod,
    long podPidsLimit,
    List<String> enforceNodeAllocatable) {

  public static final CgroupSettings DEFAULTS =
      new CgroupSettings(true, "", "cgroupfs", true, Duration.ofMillis(100), -1, List.of("pods"));

  public CgroupSettings {
    Objects.requireNonNull(cgroupRoot, "cgroupRoot");
    Objects.requireNonNull(cgroupDriver, "cgroupDriver");
    Objects.requireNonNull(cpuCFSQuotaPeriod, "cpuCFSQuotaPeriod");
    enforceNodeAllocatable = List.copyOf(enforceNodeAllocatable);
  }

  public CgroupSettings withCgroupsPerQOS(boolean v) {
    return new CgroupSettings(
        v,
        cgroupRoot,
        cgroupDriver,
        cpuCFSQuota,
        cpuCFSQuotaPeriod,
        podPidsLimit,
        enforceNodeAllocatable);
  }

  public CgroupSettings withCgroupRoot(String v) {
    return new CgroupSettings(
        cgroupsPerQOS,
        v,
        cgroupDriver,
        cpuCFSQuota,
        cpuCFSQuotaPeriod,
        podPidsLimit,
        enforceNodeAllocatable);
  }

  public CgroupSettings withCgroupDriver(String v) {
    return new CgroupSettings(
        cgroupsPerQOS,
        cgroupRoot,
        v,
        cpuCFSQuota,
        cpuCFSQuotaPeriod,
        podPidsLimit,
        enforceNodeAllocatable);
  }

  public CgroupSettings withCpuCFSQuota(boolean v) {
    return new CgroupSettings(
        cgroupsPerQOS,
        cgroupRoot,
        cgroupDriver,
        v,
        cpuCFSQuotaPeriod,
        podPidsLimit,
        enforceNodeAllocatable);
  }

  public CgroupSettings withCpuCFSQuotaPeriod(Duration v) {
    return new CgroupSettings(
        cgroupsPerQOS,
        cgroupRoot,
        cgroupDriver,
        cpuCFSQuota,
        v,
        podPidsLimit,
        enforceNodeAllocatable);
  }

  public CgroupSettings withPodPidsLimit(long v) {
    return new CgroupSettings(
        cgroupsPerQOS,
        cgroupRoot,
        cgroupDriver,
        cpuCFSQuota,
        cpuCFSQuotaPeriod,
        v,
        enforceNodeAllocatable);
  }

  public CgroupSettings withEnforceNodeAllocatable(List<String> v) {
    return new CgroupSettings(
        cgroupsPerQOS, cgroupRoot, cgroupDriver, cpuCFSQuota, cpuCFSQuotaPeriod, podPidsLimit, v);
  }
}
