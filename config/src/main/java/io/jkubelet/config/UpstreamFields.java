package io.jkubelet.config;

import java.util.List;
import java.util.Set;

/**
 * What upstream's KubeletConfiguration v1beta1 (v1.20) has beyond the settings jkubelet declares:
 * every field's name, so that a field jkubelet does not implement is told apart from a misspelt
 * one; and the settings it accepts without effect ({@link #IGNORED}).
 *
 * <p>Upstream's {@code SetDefaults_KubeletConfiguration} gives a field its default when it holds
 * Go's zero value and is not a pointer: {@code 0s} for every duration, {@code 0} or {@code ""} for
 * the fields declared {@link Field#zeroIsUnset()}. kubeadm writes every duration as {@code 0s}, so
 * without this its {@code config.yaml} was refused. Of the fields not implemented yet, these
 * default from zero too: {@code registryBurst}, {@code maxOpenFiles} (0); {@code cpuManagerPolicy},
 * {@code topologyManagerPolicy}, {@code topologyManagerScope}, {@code
 * configMapAndSecretChangeDetectionStrategy}, {@code volumePluginDir} ("").
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
   * flag, the type upstream gives it, and why it has no effect here. Their values are read and
   * checked as upstream's, and their use is logged once. A field that upstream defaults from Go's
   * zero value (see {@link Field#zeroIsUnset()}) needs nothing more: an ignored value is never
   * used.
   */
  static final List<Setting> IGNORED =
      List.of(
          Setting.ignored(
              "enableContentionProfiling",
              "--contention-profiling",
              Type.BOOL,
              "jkubelet serves no profiling handlers"));
}
