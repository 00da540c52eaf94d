package io.jkubelet.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The node agent's configuration: the subset of {@code kubelet.config.k8s.io/v1beta1}
 * KubeletConfiguration that jkubelet supports, plus jkubelet's own settings and the flags that have
 * no field (upstream's {@code KubeletFlags}). Component names, and those of the settings records'
 * components, are upstream's JSON field names, so they are also the names used in files and in
 * {@link ConfigException#field()}.
 *
 * <p>Each setting is declared once, by the {@link Field} on its component: its file name, flag,
 * default, checks and doc. {@link Settings} derives the rest from the declarations: the file's
 * reading ({@link ConfigLoader}), the flags, the defaults, validation ({@link ConfigValidator}) and
 * the help. Adding a setting is a component with its {@link Field}, and the code that uses it.
 *
 * <p>Instances are immutable. The constructor only rejects null references; ranges are checked by
 * {@link ConfigValidator}, so a configuration can be assembled from a file and flags first and
 * validated once at the end.
 *
 * <p>Each subsystem's settings are a record of their own: {@link StaticPodSettings}, {@link
 * ServerSettings} (the kubelet API), {@link ContainerLogSettings}, {@link EventExport}, {@link
 * NetworkSettings}, {@link CgroupSettings}, {@link CertificateSettings}, {@link
 * ReservationSettings}, {@link EvictionSettings}, {@link GcSettings}, {@link RuntimeSettings} (the
 * engine), {@link ImageSettings} (image pulls), {@link TerminationSettings} (pods being deleted)
 * and {@link ShutdownSettings} (graceful node shutdown). The settings left here are the node's own;
 * a new subsystem adds a record rather than settings here.
 */
public record KubeletConfiguration(
    StaticPodSettings staticPods,
    @Field(
            flag = "--sync-frequency",
            value = "1m",
            check = Checks.Positive.class,
            doc = "Period of each pod's resync, with jitter")
        Duration syncFrequency,
    @Field(
            flag = "--max-pods",
            value = "110",
            min = 1,
            zeroIsUnset = true,
            doc = "The most pods this node runs")
        int maxPods,
    @Field(
            flag = "--node-status-update-frequency",
            value = "10s",
            check = Checks.Positive.class,
            doc =
                "How often the node status is computed, and posted if it changed (the Lease is"
                    + " renewed every quarter of nodeLeaseDurationSeconds, as upstream's)")
        Duration nodeStatusUpdateFrequency,
    @Field(
            value = "5m",
            check = Checks.Positive.class,
            doc =
                "How often the node status is posted even if unchanged; in a file, it follows"
                    + " nodeStatusUpdateFrequency when only that is set")
        Duration nodeStatusReportFrequency,
    @Field(
            value = "40",
            min = 1,
            zeroIsUnset = true,
            doc =
                "The duration of the node's heartbeat Lease, in seconds; it is renewed every"
                    + " quarter of it")
        int nodeLeaseDurationSeconds,
    @Field(
            flag = "--event-qps",
            value = "5",
            min = 0,
            doc =
                "Events written to the API server per second at most (the event client's rate"
                    + " limit); 0: unlimited")
        int eventRecordQPS,
    @Field(
            flag = "--event-burst",
            value = "10",
            min = 0,
            zeroIsUnset = true,
            doc = "Events written at once beyond --event-qps; only with --event-qps above 0")
        int eventBurst,
    @Field(
            flag = "--event-spam-burst",
            value = "25",
            min = 1,
            zeroIsUnset = true,
            doc =
                "jkubelet's own: the size of the event spam filter's bucket per (source, object),"
                    + " as client-go's correlator (25); Warnings and each reason's first event do"
                    + " not spend it")
        int eventSpamBurst,
    @Field(
            flag = "--event-spam-refill-period",
            value = "5m",
            check = Checks.Positive.class,
            doc =
                "jkubelet's own: how long the spam filter takes to give an object one token back,"
                    + " as client-go's correlator (one per 5m)")
        Duration eventSpamRefillPeriod,
    @Field(
            flag = "--pod-start-timeline",
            value = "true",
            doc =
                "jkubelet's own: record each pod's start-up timeline (a StartupTimeline event at"
                    + " its first Ready, /pods/{namespace}/{name}/timeline on the kubelet API,"
                    + " kubelet_pod_start_phase_duration_seconds, <root-dir>/pods/<uid>/timeline.json);"
                    + " false: none of it")
        boolean podStartTimeline,
    @Field(
            flag = "--kube-api-qps",
            value = "5",
            min = 0,
            doc =
                "Requests per second to the API server, shared by the clients of pods, pod"
                    + " status, mirror pods and the objects pods use (not events nor the node's"
                    + " heartbeat, as upstream); 0: client-go's 5")
        int kubeAPIQPS,
    @Field(
            flag = "--kube-api-burst",
            value = "10",
            min = 0,
            zeroIsUnset = true,
            doc = "Requests at once beyond --kube-api-qps")
        int kubeAPIBurst,
    @Field(
            flag = "--kube-api-content-type",
            label = "TYPE",
            value = "application/vnd.kubernetes.protobuf",
            zeroIsUnset = true,
            doc =
                "The content type of requests to the API server. Accepted, but the clients speak"
                    + " JSON whatever it says (fabric8 reads no protobuf), which start-up logs")
        String contentType,
    @Field(
            flag = "--register-node",
            value = "true",
            doc =
                "Whether the agent creates its Node in the API server. With false it waits for"
                    + " someone to create it, then writes its status and Lease, never its labels"
                    + " or taints (in a file: upstream's field since v1.22)")
        boolean registerNode,
    @Field(
            flag = "--pod-infra-oom-score-adj",
            value = "0",
            min = -1000,
            max = 1000,
            doc =
                "oom_score_adj of sandbox containers; jkubelet's own. Upstream uses -998, which"
                    + " some hosts (rootless or user-namespaced Docker) refuse: a refused value"
                    + " falls back to 0 with a warning")
        int podInfraOomScoreAdj,
    @Field(
            flag = "--allowed-unsafe-sysctls",
            label = "NAME,...",
            doc =
                "Unsafe sysctls (or patterns ending in *) that pods may set, beyond the safe ones."
                    + " Each must be namespaced (kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*,"
                    + " net.*)")
        List<String> allowedUnsafeSysctls,
    @Field(
            flag = "--cluster-dns",
            label = "IP,...",
            check = Checks.IpAddresses.class,
            doc =
                "DNS servers for ClusterFirst pods; without any, such pods fall back to Default"
                    + " with a MissingClusterDNS Warning")
        List<String> clusterDNS,
    @Field(
            flag = "--cluster-domain",
            label = "DOMAIN",
            doc = "The cluster's DNS domain, e.g. cluster.local, for pods' search paths and FQDNs")
        String clusterDomain,
    @Field(
            flag = "--resolv-conf",
            label = "FILE",
            value = "/etc/resolv.conf",
            zeroIsUnset = true,
            doc = "The resolver file Default pods copy; \"\" gives them none")
        String resolvConf,
    @Field(
            flag = "--fail-swap-on",
            value = "true",
            doc = "Refuse to start when the host has swap on, as upstream's container manager does")
        boolean failSwapOn,
    @Field(
            flag = "--feature-gates",
            check = Checks.KnownFeatureGates.class,
            doc =
                "Upstream v1.20's feature gates; an unknown one is refused; those jkubelet does not"
                    + " honour are logged once at start (docs/configuration.md lists them)")
        Map<String, Boolean> featureGates,
    @Field(
            file = Field.FLAG_ONLY,
            flag = "--cloud-provider",
            label = "PROVIDER",
            check = Checks.CloudProvider.class,
            doc = "\"\" (none) or external (a cloud controller manager); no in-tree provider")
        String cloudProvider,
    @Field(
            file = "providerID",
            flag = "--provider-id",
            label = "ID",
            doc = "The Node's spec.providerID, set when the Node registers")
        String providerID,
    @Field(
            flag = "--max-open-files",
            value = "1000000",
            zeroIsUnset = true,
            check = Checks.NotNegativeNumber.class,
            doc = "The agent's limit of open files (RLIMIT_NOFILE), set at start")
        long maxOpenFiles,
    RuntimeSettings runtime,
    ServerSettings server,
    ContainerLogSettings containerLogs,
    EventExport eventExport,
    NetworkSettings network,
    CgroupSettings cgroups,
    CertificateSettings certificates,
    ReservationSettings reservations,
    EvictionSettings eviction,
    GcSettings gc,
    ImageSettings images,
    TerminationSettings terminations,
    ShutdownSettings shutdown) {

  /**
   * Copies the lists into unmodifiable ones.
   *
   * @throws NullPointerException if any reference component is null
   */
  public KubeletConfiguration {
    Records.requireNonNull(
        KubeletConfiguration.class,
        staticPods,
        syncFrequency,
        nodeStatusUpdateFrequency,
        nodeStatusReportFrequency,
        eventSpamRefillPeriod,
        contentType,
        allowedUnsafeSysctls,
        clusterDNS,
        clusterDomain,
        resolvConf,
        featureGates,
        cloudProvider,
        providerID,
        runtime,
        server,
        containerLogs,
        eventExport,
        network,
        cgroups,
        certificates,
        reservations,
        eviction,
        gc,
        images,
        terminations,
        shutdown);
    allowedUnsafeSysctls = List.copyOf(allowedUnsafeSysctls);
    clusterDNS = List.copyOf(clusterDNS);
    featureGates = Map.copyOf(featureGates);
  }

  /** The configuration with every setting at its default, as declared. */
  public static KubeletConfiguration defaults() {
    return Settings.defaults(KubeletConfiguration.class, false);
  }

  /**
   * A builder starting from the defaults of a configuration file, which differ from the flags'
   * where {@code kubelet.config.k8s.io/v1beta1} says so ({@link Field#fileValue()}): {@code
   * readOnlyPort} 0, no anonymous requests, the token webhook on and authorization mode Webhook.
   */
  public static KubeletConfigurationBuilder fileBuilder() {
    return KubeletConfigurationBuilder.defaults(true);
  }

  /** A builder starting from {@link #defaults()}. */
  public static KubeletConfigurationBuilder builder() {
    return KubeletConfigurationBuilder.defaults(false);
  }

  /**
   * A builder starting from this configuration, for overlaying command-line flags on values read
   * from a file: set only what the flags give, then {@link KubeletConfigurationBuilder#build()}.
   */
  public KubeletConfigurationBuilder toBuilder() {
    return KubeletConfigurationBuilder.of(this);
  }
}
