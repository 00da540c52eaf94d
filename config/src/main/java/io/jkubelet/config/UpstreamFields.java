package io.jkubelet.config;

import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What upstream's KubeletConfiguration v1beta1 (v1.20) has beyond the settings jkubelet declares:
 * every field's name, so that a field jkubelet does not implement is told apart from a misspelt
 * one; and the settings it accepts without effect ({@link #IGNORED}).
 *
 * <p>Upstream's {@code SetDefaults_KubeletConfiguration} gives a field its default when it holds
 * Go's zero value and is not a pointer: {@code 0s} for every duration, {@code 0} or {@code ""} for
 * the fields declared {@link Field#zeroIsUnset()}. kubeadm writes every duration as {@code 0s}, so
 * without this its {@code config.yaml} was refused. Of the fields accepted without effect, these
 * default from zero too: {@code cpuManagerPolicy}, {@code topologyManagerPolicy}, {@code
 * topologyManagerScope}, {@code configMapAndSecretChangeDetectionStrategy}, {@code volumePluginDir}
 * ("").
 */
final class UpstreamFields {
  private UpstreamFields() {}

  /** Every field of upstream's v1beta1 KubeletConfiguration, v1.20. */
  static final Set<String> ALL =
      Set.of(
          "enableServer",
          "staticPodPath",
          "syncFrequency",
          "fileCheckFrequency",
          "httpCheckFrequency",
          "staticPodURL",
          "staticPodURLHeader",
          "address",
          "port",
          "readOnlyPort",
          "tlsCertFile",
          "tlsPrivateKeyFile",
          "tlsCipherSuites",
          "tlsMinVersion",
          "rotateCertificates",
          "serverTLSBootstrap",
          "authentication",
          "authorization",
          "registryPullQPS",
          "registryBurst",
          "eventRecordQPS",
          "eventBurst",
          "enableDebuggingHandlers",
          "enableContentionProfiling",
          "healthzPort",
          "healthzBindAddress",
          "oomScoreAdj",
          "clusterDomain",
          "clusterDNS",
          "streamingConnectionIdleTimeout",
          "nodeStatusUpdateFrequency",
          "nodeStatusReportFrequency",
          "nodeLeaseDurationSeconds",
          "imageMinimumGCAge",
          "imageGCHighThresholdPercent",
          "imageGCLowThresholdPercent",
          "volumeStatsAggPeriod",
          "kubeletCgroups",
          "systemCgroups",
          "cgroupRoot",
          "cgroupsPerQOS",
          "cgroupDriver",
          "cpuManagerPolicy",
          "cpuManagerReconcilePeriod",
          "topologyManagerPolicy",
          "topologyManagerScope",
          "qosReserved",
          "runtimeRequestTimeout",
          "hairpinMode",
          "maxPods",
          "podCIDR",
          "podPidsLimit",
          "resolvConf",
          "runOnce",
          "cpuCFSQuota",
          "cpuCFSQuotaPeriod",
          "nodeStatusMaxImages",
          "maxOpenFiles",
          "contentType",
          "kubeAPIQPS",
          "kubeAPIBurst",
          "serializeImagePulls",
          "evictionHard",
          "evictionSoft",
          "evictionSoftGracePeriod",
          "evictionPressureTransitionPeriod",
          "evictionMaxPodGracePeriod",
          "evictionMinimumReclaim",
          "podsPerCore",
          "enableControllerAttachDetach",
          "protectKernelDefaults",
          "makeIPTablesUtilChains",
          "iptablesMasqueradeBit",
          "iptablesDropBit",
          "featureGates",
          "failSwapOn",
          "containerLogMaxSize",
          "containerLogMaxFiles",
          "configMapAndSecretChangeDetectionStrategy",
          "systemReserved",
          "kubeReserved",
          "reservedSystemCPUs",
          "showHiddenMetricsForVersion",
          "systemReservedCgroup",
          "kubeReservedCgroup",
          "enforceNodeAllocatable",
          "allowedUnsafeSysctls",
          "volumePluginDir",
          "providerID",
          "kernelMemcgNotification",
          "logging",
          "enableSystemLogHandler",
          "shutdownGracePeriod",
          "shutdownGracePeriodCriticalPods");

  /**
   * The upstream settings jkubelet accepts without effect, one line each: the file's field, the
   * flag, the type upstream gives it, why it has no effect here, and upstream's checks of its
   * value. Their values are read and checked as upstream's, and their use is logged once. A field
   * that upstream defaults from Go's zero value (see {@link Field#zeroIsUnset()}) needs nothing
   * more: an ignored value is never used. Together with the declared settings they are every flag
   * of upstream v1.20's {@code kubelet --help} and every v1beta1 field ({@code UpstreamFlagsTest}).
   */
  static final List<Setting> IGNORED =
      Stream.of(kubelet(), UpstreamGlobalFlags.klog(), UpstreamGlobalFlags.cadvisor())
          .flatMap(List::stream)
          .toList();

  private static final String CPU_MANAGER =
      "jkubelet has no CPU manager: pods share the node's CPUs, as upstream's none policy";
  private static final String TOPOLOGY = "jkubelet has no topology manager, as upstream's none";

  /** The kubelet's own settings: fields, and flags with no field. */
  private static List<Setting> kubelet() {
    return List.of(
        Setting.ignored(
            "enableContentionProfiling",
            "--contention-profiling",
            Type.BOOL,
            "jkubelet serves no profiling handlers"),
        Setting.ignored(
            "enableServer",
            "--enable-server",
            Type.BOOL,
            "jkubelet always serves the kubelet API (--port)"),
        Setting.ignored(
            "oomScoreAdj",
            "--oom-score-adj",
            Type.INT,
            "jkubelet keeps the oom_score_adj it was started with (systemd's OOMScoreAdjust=)",
            Checks.range(-1000, 1000)),
        Setting.ignored(
            "streamingConnectionIdleTimeout",
            "--streaming-connection-idle-timeout",
            Type.DURATION,
            "jkubelet's exec, attach and port-forward streams end with their client"),
        Setting.ignored(
            "volumeStatsAggPeriod",
            "--volume-stats-agg-period",
            Type.DURATION,
            "jkubelet measures volumes when their stats are asked for"),
        Setting.ignored(
            "kubeletCgroups",
            "--kubelet-cgroups",
            Type.STRING,
            "jkubelet does not move itself into a cgroup"),
        Setting.ignored(
            "systemCgroups",
            "--system-cgroups",
            Type.STRING,
            "jkubelet does not move the host's processes into a cgroup"),
        Setting.ignored(
            null,
            "--runtime-cgroups",
            Type.STRING,
            "jkubelet does not move the container engine into a cgroup"),
        Setting.ignored("cpuManagerPolicy", "--cpu-manager-policy", Type.STRING, CPU_MANAGER),
        Setting.ignored(
            "cpuManagerReconcilePeriod",
            "--cpu-manager-reconcile-period",
            Type.DURATION,
            CPU_MANAGER),
        Setting.ignored("reservedSystemCPUs", "--reserved-cpus", Type.STRING, CPU_MANAGER),
        Setting.ignored(
            "topologyManagerPolicy",
            "--topology-manager-policy",
            Type.STRING,
            TOPOLOGY,
            Checks.allowable("none", "best-effort", "restricted", "single-numa-node")),
        Setting.ignored(
            "topologyManagerScope",
            "--topology-manager-scope",
            Type.STRING,
            TOPOLOGY,
            Checks.allowable("container", "pod")),
        Setting.ignored(
            "qosReserved",
            "--qos-reserved",
            Type.MAP,
            "jkubelet does not implement the alpha QOSReserved gate"),
        Setting.ignored("runOnce", "--runonce", Type.BOOL, "jkubelet has no run-once mode"),
        Setting.ignored(
            "nodeStatusMaxImages",
            "--node-status-max-images",
            Type.INT,
            "jkubelet's Node status lists upstream's default, the 50 largest images",
            (field, v) -> {
              if ((Integer) v < -1) {
                throw new ConfigException(field, "must be -1 or greater");
              }
            }),
        Setting.ignored(
            "podsPerCore",
            "--pods-per-core",
            Type.INT,
            "jkubelet's pod capacity is maxPods alone",
            Checks.notNegative()),
        Setting.ignored(
            "enableControllerAttachDetach",
            "--enable-controller-attach-detach",
            Type.BOOL,
            "jkubelet attaches no volumes: it has no attachable volume plugins"),
        Setting.ignored(
            "protectKernelDefaults",
            "--protect-kernel-defaults",
            Type.BOOL,
            "jkubelet neither checks nor changes the kernel's tunables"),
        Setting.ignored(
            "makeIPTablesUtilChains",
            "--make-iptables-util-chains",
            Type.BOOL,
            "jkubelet makes no KUBE-MARK iptables chains"),
        Setting.ignored(
            "iptablesMasqueradeBit",
            "--iptables-masquerade-bit",
            Type.INT,
            "jkubelet makes no KUBE-MARK iptables chains",
            Checks.range(0, 31)),
        Setting.ignored(
            "iptablesDropBit",
            "--iptables-drop-bit",
            Type.INT,
            "jkubelet makes no KUBE-MARK iptables chains",
            Checks.range(0, 31)),
        Setting.ignored(
            "configMapAndSecretChangeDetectionStrategy",
            null,
            Type.STRING,
            "jkubelet always watches the secrets and configMaps its pods use (upstream's Watch)",
            Checks.allowable("Get", "Cache", "Watch")),
        Setting.ignored(
            "showHiddenMetricsForVersion",
            "--show-hidden-metrics-for-version",
            Type.STRING,
            "jkubelet has no hidden metrics"),
        Setting.ignored(
            "systemReservedCgroup",
            "--system-reserved-cgroup",
            Type.STRING,
            "jkubelet does not enforce system-reserved on a cgroup"),
        Setting.ignored(
            "kubeReservedCgroup",
            "--kube-reserved-cgroup",
            Type.STRING,
            "jkubelet does not enforce kube-reserved on a cgroup"),
        Setting.ignored(
            "volumePluginDir",
            "--volume-plugin-dir",
            Type.STRING,
            "jkubelet has no FlexVolume plugins"),
        Setting.ignored(
            "kernelMemcgNotification",
            "--kernel-memcg-notification",
            Type.BOOL,
            "jkubelet reads the memory signal every 100 ms instead"),
        Setting.ignored(
            null,
            "--experimental-kernel-memcg-notification",
            Type.BOOL,
            "jkubelet reads the memory signal every 100 ms instead"),
        Setting.ignored(
            "logging.format",
            "--logging-format",
            Type.STRING,
            UpstreamGlobalFlags.LOGS,
            Checks.allowable("text", "json")),
        Setting.ignored(
            "logging.sanitization",
            "--experimental-logging-sanitization",
            Type.BOOL,
            UpstreamGlobalFlags.LOGS),
        Setting.ignored(
            null,
            "--azure-container-registry-config",
            Type.STRING,
            "jkubelet has no cloud credential providers"),
        Setting.ignored(
            null, "--cloud-config", Type.STRING, "jkubelet has no in-tree cloud providers"),
        Setting.ignored(
            null,
            "--dynamic-config-dir",
            Type.STRING,
            "jkubelet does not implement dynamic kubelet configuration"),
        Setting.ignored(null, "--lock-file", Type.STRING, "jkubelet takes no lock file"),
        Setting.ignored(
            null, "--exit-on-lock-contention", Type.BOOL, "jkubelet takes no lock file"),
        Setting.ignored(
            null,
            "--experimental-allocatable-ignore-eviction",
            Type.BOOL,
            "deprecated upstream; jkubelet counts the hard eviction memory in the reservation,"
                + " as upstream's default"),
        Setting.ignored(
            null,
            "--experimental-check-node-capabilities-before-mount",
            Type.BOOL,
            "jkubelet mounts only tmpfs and bind mounts"),
        Setting.ignored(
            null,
            "--experimental-mounter-path",
            Type.STRING,
            "jkubelet mounts only tmpfs and bind mounts"),
        Setting.ignored(
            null,
            "--experimental-dockershim-root-directory",
            Type.STRING,
            "jkubelet keeps no dockershim checkpoints"),
        Setting.ignored(
            null,
            "--image-service-endpoint",
            Type.STRING,
            "the images are the Docker Engine's, the runtime's own"),
        Setting.ignored(
            null,
            "--image-credential-provider-config",
            Type.STRING,
            "jkubelet does not implement the alpha KubeletCredentialProviders gate"),
        Setting.ignored(
            null,
            "--image-credential-provider-bin-dir",
            Type.STRING,
            "jkubelet does not implement the alpha KubeletCredentialProviders gate"),
        Setting.ignored(
            null,
            "--keep-terminated-pod-volumes",
            Type.BOOL,
            "deprecated upstream; jkubelet removes a terminated pod's volumes"),
        Setting.ignored(
            null,
            "--master-service-namespace",
            Type.STRING,
            "deprecated upstream; jkubelet takes the kubernetes service from namespace default"),
        Setting.ignored(
            null,
            "--register-schedulable",
            Type.BOOL,
            "deprecated upstream; the Node registers schedulable, as upstream's default"),
        Setting.ignored(
            null,
            "--redirect-container-streaming",
            Type.BOOL,
            "removed upstream in v1.20; jkubelet serves streams itself"),
        Setting.ignored(
            null,
            "--seccomp-profile-root",
            Type.STRING,
            "deprecated upstream; jkubelet takes localhost profiles from <root-dir>/seccomp"),
        Setting.ignored(null, "--really-crash-for-testing", Type.BOOL, "an upstream testing aid"),
        Setting.ignored(null, "--chaos-chance", Type.FLOAT, "an upstream testing aid"),
        Setting.ignored(
            null,
            "--enable-cadvisor-json-endpoints",
            Type.BOOL,
            "deprecated upstream; jkubelet has no cAdvisor endpoints"));
  }
}
