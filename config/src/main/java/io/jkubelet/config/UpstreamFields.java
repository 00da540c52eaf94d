package io.jkubelet.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Set;

/**
 * What upstream's KubeletConfiguration v1beta1 (v1.20) has that this loader needs to know beyond
 * the fields it reads: every field's name, so that a field jkubelet does not implement is told
 * apart from a misspelt one; and which values count as unset.
 *
 * <p>Upstream's {@code SetDefaults_KubeletConfiguration} gives a field its default when it holds
 * Go's zero value and is not a pointer: {@code 0s} for every duration, {@code 0} for the ports,
 * burst and count fields below, {@code ""} for the strings below. kubeadm writes every duration as
 * {@code 0s}, so without this its {@code config.yaml} was refused.
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

  /** The integer fields whose {@code 0} means the default. */
  private static final Set<String> ZERO_INTEGERS =
      Set.of(
          "port",
          "registryBurst",
          "eventBurst",
          "nodeLeaseDurationSeconds",
          "maxPods",
          "kubeAPIBurst",
          "maxOpenFiles");

  /** The string fields whose {@code ""} means the default. */
  private static final Set<String> EMPTY_STRINGS =
      Set.of(
          "address",
          "authorization.mode",
          "healthzBindAddress",
          "cgroupDriver",
          "cpuManagerPolicy",
          "topologyManagerPolicy",
          "topologyManagerScope",
          "hairpinMode",
          "resolvConf",
          "contentType",
          "containerLogMaxSize",
          "configMapAndSecretChangeDetectionStrategy",
          "volumePluginDir");

  /**
   * Whether {@code value} of {@code field} (a dotted path for nested fields) leaves the field at
   * its default, as upstream's defaulting does: null, or Go's zero value where upstream defaults
   * it. A value of the wrong type is never unset, so that reading it reports the error.
   */
  static boolean unset(String field, JsonNode value, boolean duration) {
    if (value.isNull()) {
      return true;
    }
    if (duration) {
      return value.isTextual() && isZeroDuration(value.textValue());
    }
    if (ZERO_INTEGERS.contains(field)) {
      return value.isIntegralNumber() && value.asLong() == 0;
    }
    return EMPTY_STRINGS.contains(field) && value.isTextual() && value.textValue().isEmpty();
  }

  private static boolean isZeroDuration(String text) {
    try {
      return Durations.parse(text).equals(Duration.ZERO);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
