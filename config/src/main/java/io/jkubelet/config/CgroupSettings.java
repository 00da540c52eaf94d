package io.jkubelet.config;

import java.time.Duration;
import java.util.List;

/**
 * The container manager's settings of upstream's KubeletConfiguration: the pods' cgroups. Checked
 * by {@link ConfigValidator} (each setting's declaration, then {@link #validate()}).
 */
public record CgroupSettings(
    @Field(
            value = "true",
            doc = "Whether pods get the QoS cgroup hierarchy and cgroups of their own")
        boolean cgroupsPerQOS,
    @Field(
            label = "PATH",
            check = Checks.CgroupPath.class,
            doc = "The cgroup the pods' hierarchy goes under; none: the root, /")
        String cgroupRoot,
    @Field(
            label = "DRIVER",
            oneOf = {"cgroupfs", "systemd"},
            zeroIsUnset = true,
            doc =
                "cgroupfs or systemd. Docker's own (docker info) wins, as upstream v1.28+ takes"
                    + " the runtime's: another is overridden with a warning")
        String cgroupDriver,
    @Field(value = "true", doc = "Whether cpu limits are CFS quotas") boolean cpuCFSQuota,
    @Field(
            value = "100ms",
            check = Checks.CfsPeriod.class,
            doc =
                "The CFS period, 1us to 1s (upstream needs the CustomCPUCFSQuotaPeriod gate for"
                    + " another value; jkubelet has no gates)")
        Duration cpuCFSQuotaPeriod,
    @Field(
            flag = "--pod-max-pids",
            value = "-1",
            doc = "The most processes in a pod; a negative value: no limit")
        long podPidsLimit,
    @Field(
            label = "LEVEL,...",
            value = "pods",
            check = Checks.Enforcements.class,
            doc =
                "Which reservations cgroups enforce: pods, or none; empty for nothing"
                    + " (system-reserved and kube-reserved need reserved cgroups, which jkubelet"
                    + " does not support yet)")
        List<String> enforceNodeAllocatable)
    implements Validated {

  public static final CgroupSettings DEFAULTS = Settings.defaults(CgroupSettings.class, false);

  /**
   * Upstream's rules across the settings: {@code none} alone, and enforcement needs QoS cgroups.
   */
  @Override
  public void validate() {
    if (enforceNodeAllocatable.contains("none") && enforceNodeAllocatable.size() > 1) {
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
}
