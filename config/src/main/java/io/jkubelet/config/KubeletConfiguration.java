package io.jkubelet.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The node agent's configuration: the subset of {@code kubelet.config.k8s.io/v1beta1}
 * KubeletConfiguration that jkubelet supports, plus jkubelet's own {@link #podInfraOomScoreAdj}.
 * Component names, and those of the settings records' components, are upstream's JSON field names,
 * so they are also the names used in files and in {@link ConfigException#field()}.
 *
 * <p>Instances are immutable. The constructor only rejects null references; ranges are checked by
 * {@link ConfigValidator}, so a configuration can be assembled from a file and flags first and
 * validated once at the end.
 *
 * <p>Each subsystem's fields are a settings record of their own, all read by {@link ConfigLoader}
 * and checked by {@link ConfigValidator}: {@link StaticPodSettings}, {@link ServerSettings} (the
 * kubelet API), {@link ContainerLogSettings}, {@link EventExport}, {@link NetworkSettings}, {@link
 * CgroupSettings} and {@link CertificateSettings}. The fields left here are the node's own; a new
 * subsystem adds a record rather than fields.
 *
 * @param staticPods the static pod sources: {@code staticPodPath}, {@code fileCheckFrequency},
 *     {@code httpCheckFrequency}, {@code staticPodURL}, {@code staticPodURLHeader}; default {@link
 *     StaticPodSettings#DEFAULTS}
 * @param syncFrequency how often running pods are reconciled with their desired state; default 1m
 * @param maxPods maximum number of pods on this node; default 110
 * @param nodeStatusUpdateFrequency how often the node status is computed and posted if it changed;
 *     default 10s
 * @param nodeStatusReportFrequency how often the node status is posted even if unchanged; default
 *     5m
 * @param nodeLeaseDurationSeconds duration of the node's heartbeat Lease; default 40
 * @param eventRecordQPS the refill rate, per second, of the event spam filter's token bucket per
 *     involved object; default 0: upstream's one token per 300 s
 * @param eventBurst the size of that bucket; default 0: upstream's 25
 * @param kubeAPIQPS requests per second to the API server for pod status; default 50 (as kubelets
 *     since 1.27; v1.20 used 5, which makes 30 pods started at once wait seconds for their status)
 * @param kubeAPIBurst burst allowance for API server requests; default 100
 * @param registerNode whether the agent registers its Node object with the API server; default true
 * @param podInfraOomScoreAdj not an upstream field: the {@code oom_score_adj} of each pod's pause
 *     (infra) container. Upstream gives pause containers -998, but some hosts (rootless or
 *     user-namespaced Docker, for example) refuse a negative {@code oom_score_adj}, so the default
 *     is 0; at runtime a refused negative value falls back to 0 with a warning. Default 0
 * @param allowedUnsafeSysctls sysctls (names, or prefixes ending in {@code *}) that pods may set
 *     beyond the safe set; each must be known to be namespaced. Default empty
 * @param clusterDNS the cluster DNS servers that ClusterFirst pods use. Default none (such pods
 *     fall back to Default with a MissingClusterDNS Warning)
 * @param clusterDomain the cluster's DNS domain, for pods' search paths and FQDNs. Default ""
 * @param resolvConf the node's resolver file, which Default pods copy; "" gives them none. Default
 *     {@code /etc/resolv.conf}
 * @param server the kubelet API's fields: where it listens, its certificate, and how it
 *     authenticates and authorizes requests; default {@link ServerSettings#DEFAULTS}
 * @param containerLogs the file's {@code containerLogMaxSize} and {@code containerLogMaxFiles};
 *     default {@link ContainerLogSettings#DEFAULTS}
 * @param eventExport not an upstream field: where jkubelet exports its own events (Elasticsearch or
 *     OpenSearch, a JSON-lines file); default {@link EventExport#NONE}
 * @param network the file's {@code hairpinMode} and {@code podCIDR}; default {@link
 *     NetworkSettings#DEFAULTS}
 * @param cgroups the pods' cgroups: {@code cgroupsPerQOS}, {@code cgroupRoot}, {@code
 *     cgroupDriver}, {@code cpuCFSQuota}, {@code cpuCFSQuotaPeriod}, {@code podPidsLimit}, {@code
 *     enforceNodeAllocatable}; default {@link CgroupSettings#DEFAULTS}
 * @param certificates the file's {@code rotateCertificates} and {@code serverTLSBootstrap}; default
 *     {@link CertificateSettings#DEFAULTS}
 * @param reservations {@code kubeReserved} and {@code systemReserved}; default none
 * @param eviction {@code evictionHard} and the other eviction fields; default {@link
 *     EvictionSettings#DEFAULTS}
 * @param gc the image and container garbage collectors' policy; default {@link GcSettings#DEFAULTS}
 */
public record KubeletConfiguration(
    StaticPodSettings staticPods,
    Duration syncFrequency,
    int maxPods,
    Duration nodeStatusUpdateFrequency,
    Duration nodeStatusReportFrequency,
    int nodeLeaseDurationSeconds,
    int eventRecordQPS,
    int eventBurst,
    int kubeAPIQPS,
    int kubeAPIBurst,
    boolean registerNode,
    int podInfraOomScoreAdj,
    List<String> allowedUnsafeSysctls,
    List<String> clusterDNS,
    String clusterDomain,
    String resolvConf,
    ServerSettings server,
    ContainerLogSettings containerLogs,
    EventExport eventExport,
    NetworkSettings network,
    CgroupSettings cgroups,
    CertificateSettings certificates,
    ReservationSettings reservations,
    EvictionSettings eviction,
    GcSettings gc) {

  /**
   * Copies the lists into unmodifiable ones.
   *
   * @throws NullPointerException if any reference component is null
   */
  public KubeletConfiguration {
    Objects.requireNonNull(staticPods, "staticPods");
    Objects.requireNonNull(syncFrequency, "syncFrequency");
    Objects.requireNonNull(nodeStatusUpdateFrequency, "nodeStatusUpdateFrequency");
    Objects.requireNonNull(nodeStatusReportFrequency, "nodeStatusReportFrequency");
    allowedUnsafeSysctls = List.copyOf(allowedUnsafeSysctls);
    clusterDNS = List.copyOf(clusterDNS);
    Objects.requireNonNull(clusterDomain, "clusterDomain");
    Objects.requireNonNull(resolvConf, "resolvConf");
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(containerLogs, "containerLogs");
    Objects.requireNonNull(eventExport, "eventExport");
    Objects.requireNonNull(network, "network");
    Objects.requireNonNull(cgroups, "cgroups");
    Objects.requireNonNull(certificates, "certificates");
    Objects.requireNonNull(reservations, "reservations");
    Objects.requireNonNull(eviction, "eviction");
    Objects.requireNonNull(gc, "gc");
  }

  /** The configuration with every field at its default, as documented on each component. */
  public static KubeletConfiguration defaults() {
    return new KubeletConfigurationBuilder().build();
  }

  /**
   * A builder starting from the defaults of a configuration file, which differ from the flags'
   * where {@code kubelet.config.k8s.io/v1beta1} says so: {@code readOnlyPort} 0, no anonymous
   * requests, the token webhook on and authorization mode Webhook.
   */
  public static KubeletConfigurationBuilder fileBuilder() {
    return new KubeletConfigurationBuilder().server(ServerSettings.FILE_DEFAULTS);
  }

  /** A builder starting from {@link #defaults()}. */
  public static KubeletConfigurationBuilder builder() {
    return new KubeletConfigurationBuilder();
  }

  /**
   * A builder starting from this configuration, for overlaying command-line flags on values read
   * from a file: set only what the flags give, then {@link KubeletConfigurationBuilder#build()}.
   */
  public KubeletConfigurationBuilder toBuilder() {
    return new KubeletConfigurationBuilder(this);
  }
}
