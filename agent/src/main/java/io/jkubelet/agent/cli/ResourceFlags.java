package io.jkubelet.agent.cli;

import io.jkubelet.agent.cm.CgroupOptions;
import io.jkubelet.config.CgroupSettings;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.KubeletConfiguration;
import io.jkubelet.config.KubeletConfigurationBuilder;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The container manager's flags (a picocli mixin of {@code run}), upstream's: each overlays its
 * configuration field, so a flag given wins over the file.
 */
final class ResourceFlags {
  @Option(
      names = "--cgroups-per-qos",
      paramLabel = "BOOL",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Whether pods get the QoS cgroup hierarchy and cgroups of their own (cgroupsPerQOS,"
              + " default true).")
  Boolean cgroupsPerQos;

  @Option(
      names = "--cgroup-root",
      paramLabel = "PATH",
      description = "The cgroup the pods' hierarchy goes under (cgroupRoot, default /).")
  String cgroupRoot;

  @Option(
      names = "--cgroup-driver",
      paramLabel = "DRIVER",
      description = "cgroupfs (default) or systemd; must match Docker's (cgroupDriver).")
  String cgroupDriver;

  @Option(
      names = "--cpu-cfs-quota",
      paramLabel = "BOOL",
      arity = "0..1",
      fallbackValue = "true",
      description = "Whether cpu limits are CFS quotas (cpuCFSQuota, default true).")
  Boolean cpuCfsQuota;

  @Option(
      names = "--cpu-cfs-quota-period",
      paramLabel = "DURATION",
      converter = RunCommand.DurationConverter.class,
      description = "The CFS period, 1us to 1s (cpuCFSQuotaPeriod, default 100ms).")
  Duration cpuCfsQuotaPeriod;

  @Option(
      names = "--pod-max-pids",
      paramLabel = "N",
      description = "The most processes in a pod; -1 for no limit (podPidsLimit, default -1).")
  Long podMaxPids;

  @Option(
      names = "--enforce-node-allocatable",
      paramLabel = "LEVEL,...",
      description =
          "Which reservations cgroups enforce: pods (default), or none; empty for nothing"
              + " (enforceNodeAllocatable).")
  String enforceNodeAllocatable;

  /** Sets the configuration fields of the flags that were given. */
  void overlay(KubeletConfigurationBuilder b, Map<String, String> flagOf) {
    RunCommand.overlay(
        flagOf,
        cgroupsPerQos,
        "cgroupsPerQOS",
        "--cgroups-per-qos",
        v -> b.cgroups(b.cgroups().withCgroupsPerQOS(v)));
    RunCommand.overlay(
        flagOf,
        cgroupRoot,
        "cgroupRoot",
        "--cgroup-root",
        v -> b.cgroups(b.cgroups().withCgroupRoot(v)));
    RunCommand.overlay(
        flagOf,
        cgroupDriver,
        "cgroupDriver",
        "--cgroup-driver",
        v -> b.cgroups(b.cgroups().withCgroupDriver(v)));
    RunCommand.overlay(
        flagOf,
        cpuCfsQuota,
        "cpuCFSQuota",
        "--cpu-cfs-quota",
        v -> b.cgroups(b.cgroups().withCpuCFSQuota(v)));
    RunCommand.overlay(
        flagOf,
        cpuCfsQuotaPeriod,
        "cpuCFSQuotaPeriod",
        "--cpu-cfs-quota-period",
        v -> b.cgroups(b.cgroups().withCpuCFSQuotaPeriod(v)));
    RunCommand.overlay(
        flagOf,
        podMaxPids,
        "podPidsLimit",
        "--pod-max-pids",
        v -> b.cgroups(b.cgroups().withPodPidsLimit(v)));
    RunCommand.overlay(
        flagOf,
        enforceNodeAllocatable == null ? null : list(enforceNodeAllocatable),
        "enforceNodeAllocatable",
        "--enforce-node-allocatable",
        v -> b.cgroups(b.cgroups().withEnforceNodeAllocatable(v)));
  }

  /** The options; an error names the flag (or the field, when the file set it). */
  static CgroupOptions options(KubeletConfiguration config, Map<String, String> flagOf) {
    CgroupSettings s = config.cgroups();
    try {
      return new CgroupOptions(
          s.cgroupsPerQOS(),
          s.cgroupRoot(),
          s.cgroupDriver(),
          s.cpuCFSQuota(),
          s.cpuCFSQuotaPeriod(),
          s.podPidsLimit(),
          s.enforceNodeAllocatable(),
          CgroupOptions.DEFAULT_CGROUP_FS);
    } catch (ConfigException e) {
      String flag = flagOf.get(e.field());
      throw flag == null ? e : new ConfigException(flag, e.problem(), e);
    }
  }

  /** A comma-separated flag value as a list: "" is the empty list, as upstream's. */
  private static List<String> list(String value) {
    return Arrays.stream(value.split(",")).map(String::strip).filter(v -> !v.isEmpty()).toList();
  }
}
