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
    Objects.requireNonNull(gc, "gc");
  }

  /** The configuration with every field at its default, as documented on each component. */
  public static KubeletConfiguration defaults() {
    return new Builder().build();
  }

  /**
   * A builder starting from the defaults of a configuration file, which differ from the flags'
   * where {@code kubelet.config.k8s.io/v1beta1} says so: {@code readOnlyPort} 0, no anonymous
   * requests, the token webhook on and authorization mode Webhook.
   */
  public static Builder fileBuilder() {
    return new Builder().server(ServerSettings.FILE_DEFAULTS);
  }

  /** A builder starting from {@link #defaults()}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A builder starting from this configuration, for overlaying command-line flags on values read
   * from a file: set only what the flags give, then {@link Builder#build()}.
   */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Mutable builder of {@link KubeletConfiguration}. Each setter replaces one field and returns
   * this builder; nothing is validated until {@link ConfigValidator#validate}.
   */
  public static final class Builder {
    private Duration syncFrequency = Duration.ofMinutes(1);
    private int maxPods = 110;
    private Duration nodeStatusUpdateFrequency = Duration.ofSeconds(10);
    private Duration nodeStatusReportFrequency = Duration.ofMinutes(5);
    private int nodeLeaseDurationSeconds = 40;
    private int eventRecordQPS = 0;
    private int eventBurst = 0;
    private int kubeAPIQPS = 50;
    private int kubeAPIBurst = 100;
    private boolean registerNode = true;
    private int podInfraOomScoreAdj = 0;
    private List<String> allowedUnsafeSysctls = List.of();
    private List<String> clusterDNS = List.of();
    private String clusterDomain = "";
    private String resolvConf = "/etc/resolv.conf";
    private StaticPodSettings staticPods = StaticPodSettings.DEFAULTS;
    private ServerSettings server = ServerSettings.DEFAULTS;
    private ContainerLogSettings containerLogs = ContainerLogSettings.DEFAULTS;
    private EventExport eventExport = EventExport.NONE;
    private NetworkSettings network = NetworkSettings.DEFAULTS;
    private CgroupSettings cgroups = CgroupSettings.DEFAULTS;
    private CertificateSettings certificates = CertificateSettings.DEFAULTS;
    private GcSettings gc = GcSettings.DEFAULTS;

    private Builder() {}

    private Builder(KubeletConfiguration c) {
      staticPods = c.staticPods;
      syncFrequency = c.syncFrequency;
      maxPods = c.maxPods;
      nodeStatusUpdateFrequency = c.nodeStatusUpdateFrequency;
      nodeStatusReportFrequency = c.nodeStatusReportFrequency;
      nodeLeaseDurationSeconds = c.nodeLeaseDurationSeconds;
      eventRecordQPS = c.eventRecordQPS;
      eventBurst = c.eventBurst;
      kubeAPIQPS = c.kubeAPIQPS;
      kubeAPIBurst = c.kubeAPIBurst;
      registerNode = c.registerNode;
      podInfraOomScoreAdj = c.podInfraOomScoreAdj;
      allowedUnsafeSysctls = c.allowedUnsafeSysctls;
      clusterDNS = c.clusterDNS;
      clusterDomain = c.clusterDomain;
      resolvConf = c.resolvConf;
      server = c.server;
      containerLogs = c.containerLogs;
      eventExport = c.eventExport;
      network = c.network;
      cgroups = c.cgroups;
      certificates = c.certificates;
      gc = c.gc;
    }

    public Builder staticPods(StaticPodSettings value) {
      staticPods = value;
      return this;
    }

    /** The current static pod source fields, for overlaying one of them. */
    public StaticPodSettings staticPods() {
      return staticPods;
    }

    public Builder server(ServerSettings value) {
      server = value;
      return this;
    }

    /** The current kubelet API fields, for overlaying one of them. */
    public ServerSettings server() {
      return server;
    }

    public Builder containerLogs(ContainerLogSettings value) {
      containerLogs = value;
      return this;
    }

    /** The current container log fields, for overlaying one of them. */
    public ContainerLogSettings containerLogs() {
      return containerLogs;
    }

    public Builder eventExport(EventExport value) {
      eventExport = value;
      return this;
    }

    public Builder network(NetworkSettings value) {
      network = value;
      return this;
    }

    public Builder gc(GcSettings value) {
      gc = value;
      return this;
    }

    /** The current garbage collection fields, for overlaying one of them. */
    public GcSettings gc() {
      return gc;
    }

    public Builder certificates(CertificateSettings value) {
      certificates = value;
      return this;
    }

    /** The current {@code rotateCertificates} and {@code serverTLSBootstrap}, for overlaying. */
    public CertificateSettings certificates() {
      return certificates;
    }

    /** The current {@code hairpinMode} and {@code podCIDR}, for overlaying one of them. */
    public NetworkSettings network() {
      return network;
    }

    public Builder cgroups(CgroupSettings value) {
      cgroups = value;
      return this;
    }

    /** The current cgroup fields, for overlaying one of them. */
    public CgroupSettings cgroups() {
      return cgroups;
    }

    /** The current {@code eventExport}, for overlaying one of its fields. */
    public EventExport eventExport() {
      return eventExport;
    }

    public Builder syncFrequency(Duration value) {
      syncFrequency = value;
      return this;
    }

    public Builder maxPods(int value) {
      maxPods = value;
      return this;
    }

    public Builder nodeStatusUpdateFrequency(Duration value) {
      nodeStatusUpdateFrequency = value;
      return this;
    }

    public Builder nodeStatusReportFrequency(Duration value) {
      nodeStatusReportFrequency = value;
      return this;
    }

    public Builder nodeLeaseDurationSeconds(int value) {
      nodeLeaseDurationSeconds = value;
      return this;
    }

    public Builder eventRecordQPS(int value) {
      eventRecordQPS = value;
      return this;
    }

    public Builder eventBurst(int value) {
      eventBurst = value;
      return this;
    }

    public Builder kubeAPIQPS(int value) {
      kubeAPIQPS = value;
      return this;
    }

    public Builder kubeAPIBurst(int value) {
      kubeAPIBurst = value;
      return this;
    }

    public Builder registerNode(boolean value) {
      registerNode = value;
      return this;
    }

    public Builder podInfraOomScoreAdj(int value) {
      podInfraOomScoreAdj = value;
      return this;
    }

    public Builder allowedUnsafeSysctls(List<String> value) {
      allowedUnsafeSysctls = value;
      return this;
    }

    public Builder clusterDNS(List<String> value) {
      clusterDNS = value;
      return this;
    }

    public Builder clusterDomain(String value) {
      clusterDomain = value;
      return this;
    }

    public Builder resolvConf(String value) {
      resolvConf = value;
      return this;
    }

    /**
     * @return a new configuration with the values set so far
     * @throws NullPointerException if a reference field was set to null
     */
    public KubeletConfiguration build() {
      return new KubeletConfiguration(
          staticPods,
          syncFrequency,
          maxPods,
          nodeStatusUpdateFrequency,
          nodeStatusReportFrequency,
          nodeLeaseDurationSeconds,
          eventRecordQPS,
          eventBurst,
          kubeAPIQPS,
          kubeAPIBurst,
          registerNode,
          podInfraOomScoreAdj,
          allowedUnsafeSysctls,
          clusterDNS,
          clusterDomain,
          resolvConf,
          server,
          containerLogs,
          eventExport,
          network,
          cgroups,
          certificates,
          gc);
    }
  }
}
