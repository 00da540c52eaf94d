package io.jkubelet.config;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The node agent's configuration: the subset of {@code kubelet.config.k8s.io/v1beta1}
 * KubeletConfiguration that jkubelet supports, plus jkubelet's own {@link #podInfraOomScoreAdj}.
 * Component names are upstream's JSON field names, so they are also the names used in files and in
 * {@link ConfigException#field()}.
 *
 * <p>Instances are immutable. The constructor only rejects null references; ranges are checked by
 * {@link ConfigValidator}, so a configuration can be assembled from a file and flags first and
 * validated once at the end.
 *
 * <p>Over 400 lines: the record lists every file field upstream's v1beta1 gives jkubelet, each with
 * its default, its builder setter and its getter for overlaying flags, and one record has to hold
 * them all so that a file and the flags give one value. Each subsystem's fields already go into a
 * settings record of its own ({@link NetworkSettings}, {@link CgroupSettings}, {@link
 * CertificateSettings}, {@link EventExport}); moving the kubelet API's and the node's fields the
 * same way (issue 32) would bring it under 400.
 *
 * @param staticPodPath directory (or single file) of static pod manifests; {@code ""} (the default)
 *     means no file source
 * @param syncFrequency how often running pods are reconciled with their desired state; default 1m
 * @param fileCheckFrequency how often {@code staticPodPath} is re-read; default 20s
 * @param httpCheckFrequency how often {@code staticPodURL} is re-fetched; default 20s
 * @param staticPodURL http(s) URL serving static pod manifests; {@code ""} (the default) means no
 *     URL source
 * @param staticPodURLHeader HTTP headers sent when fetching {@code staticPodURL}, name to values;
 *     default empty
 * @param readOnlyPort port of the unauthenticated read-only HTTP API; 0 disables it; default 10255
 * @param port port of the main HTTPS API; default 10250
 * @param address IP address the APIs listen on; default {@code "0.0.0.0"} (all interfaces)
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
 * @param tlsCertFile the serving certificate (PEM, chain after it); {@code ""} (the default): a
 *     self-signed one in the certificate directory
 * @param tlsPrivateKeyFile the serving certificate's key (PEM); default {@code ""}
 * @param authentication how the kubelet API authenticates requests
 * @param authorization how the kubelet API authorizes requests
 * @param healthzPort port of the plain-HTTP {@code /healthz}; 0 disables it; default 10248
 * @param healthzBindAddress address of {@code /healthz}; default {@code "127.0.0.1"}
 * @param enableDebuggingHandlers whether {@code /logs/}, {@code /containerLogs}, exec, attach,
 *     port-forward and run are served; default true
 * @param containerLogMaxSize the size at which a container's log file is rotated, a quantity;
 *     default {@code "10Mi"}
 * @param containerLogMaxFiles how many log files a container keeps, the live one included; default
 *     5
 * @param enableSystemLogHandler whether {@code /logs/} serves the node's log directory; default
 *     false (upstream: true, and only with the debugging handlers; here it must be asked for, as it
 *     shows the whole directory to anyone allowed {@code nodes/log})
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
    String staticPodPath,
    Duration syncFrequency,
    Duration fileCheckFrequency,
    Duration httpCheckFrequency,
    String staticPodURL,
    Map<String, List<String>> staticPodURLHeader,
    int readOnlyPort,
    int port,
    String address,
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
    String tlsCertFile,
    String tlsPrivateKeyFile,
    Authentication authentication,
    Authorization authorization,
    int healthzPort,
    String healthzBindAddress,
    boolean enableDebuggingHandlers,
    String containerLogMaxSize,
    int containerLogMaxFiles,
    boolean enableSystemLogHandler,
    EventExport eventExport,
    NetworkSettings network,
    CgroupSettings cgroups,
    CertificateSettings certificates,
    GcSettings gc) {

  /**
   * {@code authentication}: {@code x509.clientCAFile}, {@code webhook.enabled}, {@code
   * webhook.cacheTTL} and {@code anonymous.enabled}. The defaults are the flags' ({@code
   * --anonymous-auth=true}, no webhook); a configuration file starts from {@link #FILE_AUTHN}, as
   * {@code kubelet.config.k8s.io/v1beta1} defaults it.
   */
  public record Authentication(
      String clientCAFile, boolean webhookEnabled, Duration webhookCacheTTL, boolean anonymous) {
    public static final Authentication DEFAULTS =
        new Authentication("", false, Duration.ofMinutes(2), true);

    public Authentication {
      Objects.requireNonNull(clientCAFile, "authentication.x509.clientCAFile");
      Objects.requireNonNull(webhookCacheTTL, "authentication.webhook.cacheTTL");
    }
  }

  /**
   * jkubelet's {@code eventExport}: {@code url} (an Elasticsearch 7/8 or OpenSearch 1/2 endpoint,
   * http or https, optionally with {@code user:password@}), {@code credentialsFile} (one line
   * {@code user:password}), {@code caFile} (PEM), {@code index} (the prefix of the daily indices
   * {@code <index>-YYYY.MM.DD}), {@code spoolMax} (a quantity: the bound of the on-disk spool),
   * {@code file} (JSON lines) and {@code fileMaxSize} (a quantity: the size at which the file is
   * rotated). Empty {@code url} and {@code file}: no export.
   */
  public record EventExport(
      String url,
      String credentialsFile,
      String caFile,
      String index,
      String spoolMax,
      String file,
      String fileMaxSize) {
    public static final EventExport NONE =
        new EventExport("", "", "", "jkubelet-events", "1Gi", "", "100Mi");

    public EventExport {
      Objects.requireNonNull(url, "eventExport.url");
      Objects.requireNonNull(credentialsFile, "eventExport.credentialsFile");
      Objects.requireNonNull(caFile, "eventExport.caFile");
      Objects.requireNonNull(index, "eventExport.index");
      Objects.requireNonNull(spoolMax, "eventExport.spoolMax");
      Objects.requireNonNull(file, "eventExport.file");
      Objects.requireNonNull(fileMaxSize, "eventExport.fileMaxSize");
    }

    /** Whether anything is exported. */
    public boolean enabled() {
      return !url.isEmpty() || !file.isEmpty();
    }

    public EventExport withUrl(String v) {
      return new EventExport(v, credentialsFile, caFile, index, spoolMax, file, fileMaxSize);
    }

    public EventExport withCredentialsFile(String v) {
      return new EventExport(url, v, caFile, index, spoolMax, file, fileMaxSize);
    }

    public EventExport withCaFile(String v) {
      return new EventExport(url, credentialsFile, v, index, spoolMax, file, fileMaxSize);
    }

    public EventExport withIndex(String v) {
      return new EventExport(url, credentialsFile, caFile, v, spoolMax, file, fileMaxSize);
    }

    public EventExport withSpoolMax(String v) {
      return new EventExport(url, credentialsFile, caFile, index, v, file, fileMaxSize);
    }

    public EventExport withFile(String v) {
      return new EventExport(url, credentialsFile, caFile, index, spoolMax, v, fileMaxSize);
    }

    public EventExport withFileMaxSize(String v) {
      return new EventExport(url, credentialsFile, caFile, index, spoolMax, file, v);
    }
  }

  /** The file defaults of {@code authentication}: no anonymous requests, the token webhook on. */
  public static final Authentication FILE_AUTHN =
      new Authentication("", true, Duration.ofMinutes(2), false);

  /**
   * {@code authorization}: {@code mode} ({@code AlwaysAllow} or {@code Webhook}), {@code
   * webhook.cacheAuthorizedTTL} (5m) and {@code webhook.cacheUnauthorizedTTL} (30s). The flag
   * default is AlwaysAllow; a configuration file's is Webhook.
   */
  public record Authorization(
      String mode, Duration cacheAuthorizedTTL, Duration cacheUnauthorizedTTL) {
    public static final Authorization DEFAULTS =
        new Authorization("AlwaysAllow", Duration.ofMinutes(5), Duration.ofSeconds(30));

    public Authorization {
      Objects.requireNonNull(mode, "authorization.mode");
      Objects.requireNonNull(cacheAuthorizedTTL, "authorization.webhook.cacheAuthorizedTTL");
      Objects.requireNonNull(cacheUnauthorizedTTL, "authorization.webhook.cacheUnauthorizedTTL");
    }
  }

  /**
   * Copies {@code staticPodURLHeader} into an unmodifiable map (in its iteration order) of
   * unmodifiable lists.
   *
   * @throws NullPointerException if any reference component, header name or header value is null
   */
  public KubeletConfiguration {
    Objects.requireNonNull(staticPodPath, "staticPodPath");
    Objects.requireNonNull(syncFrequency, "syncFrequency");
    Objects.requireNonNull(fileCheckFrequency, "fileCheckFrequency");
    Objects.requireNonNull(httpCheckFrequency, "httpCheckFrequency");
    Objects.requireNonNull(staticPodURL, "staticPodURL");
    Objects.requireNonNull(staticPodURLHeader, "staticPodURLHeader");
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(nodeStatusUpdateFrequency, "nodeStatusUpdateFrequency");
    Objects.requireNonNull(nodeStatusReportFrequency, "nodeStatusReportFrequency");
    allowedUnsafeSysctls = List.copyOf(allowedUnsafeSysctls);
    clusterDNS = List.copyOf(clusterDNS);
    Objects.requireNonNull(clusterDomain, "clusterDomain");
    Objects.requireNonNull(resolvConf, "resolvConf");
    Objects.requireNonNull(tlsCertFile, "tlsCertFile");
    Objects.requireNonNull(tlsPrivateKeyFile, "tlsPrivateKeyFile");
    Objects.requireNonNull(authentication, "authentication");
    Objects.requireNonNull(authorization, "authorization");
    Objects.requireNonNull(healthzBindAddress, "healthzBindAddress");
    Objects.requireNonNull(containerLogMaxSize, "containerLogMaxSize");
    Objects.requireNonNull(eventExport, "eventExport");
    Objects.requireNonNull(network, "network");
    Objects.requireNonNull(cgroups, "cgroups");
    Objects.requireNonNull(certificates, "certificates");
    Objects.requireNonNull(gc, "gc");
    Map<String, List<String>> headers = new LinkedHashMap<>();
    staticPodURLHeader.forEach(
        (name, values) ->
            headers.put(
                Objects.requireNonNull(name, "staticPodURLHeader name"), List.copyOf(values)));
    staticPodURLHeader = Collections.unmodifiableMap(headers);
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
    return new Builder()
        .readOnlyPort(0)
        .authentication(FILE_AUTHN)
        .authorization(new Authorization("Webhook", Duration.ofMinutes(5), Duration.ofSeconds(30)));
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
    private String staticPodPath = "";
    private Duration syncFrequency = Duration.ofMinutes(1);
    private Duration fileCheckFrequency = Duration.ofSeconds(20);
    private Duration httpCheckFrequency = Duration.ofSeconds(20);
    private String staticPodURL = "";
    private Map<String, List<String>> staticPodURLHeader = Map.of();
    private int readOnlyPort = 10255;
    private int port = 10250;
    private String address = "0.0.0.0";
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
    private String tlsCertFile = "";
    private String tlsPrivateKeyFile = "";
    private Authentication authentication = Authentication.DEFAULTS;
    private Authorization authorization = Authorization.DEFAULTS;
    private int healthzPort = 10248;
    private String healthzBindAddress = "127.0.0.1";
    private boolean enableDebuggingHandlers = true;
    private String containerLogMaxSize = "10Mi";
    private EventExport eventExport = EventExport.NONE;
    private NetworkSettings network = NetworkSettings.DEFAULTS;
    private CgroupSettings cgroups = CgroupSettings.DEFAULTS;
    private CertificateSettings certificates = CertificateSettings.DEFAULTS;
    private GcSettings gc = GcSettings.DEFAULTS;
    private int containerLogMaxFiles = 5;
    private boolean enableSystemLogHandler = false;

    private Builder() {}

    private Builder(KubeletConfiguration c) {
      staticPodPath = c.staticPodPath;
      syncFrequency = c.syncFrequency;
      fileCheckFrequency = c.fileCheckFrequency;
      httpCheckFrequency = c.httpCheckFrequency;
      staticPodURL = c.staticPodURL;
      staticPodURLHeader = c.staticPodURLHeader;
      readOnlyPort = c.readOnlyPort;
      port = c.port;
      address = c.address;
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
      tlsCertFile = c.tlsCertFile;
      tlsPrivateKeyFile = c.tlsPrivateKeyFile;
      authentication = c.authentication;
      authorization = c.authorization;
      healthzPort = c.healthzPort;
      healthzBindAddress = c.healthzBindAddress;
      enableDebuggingHandlers = c.enableDebuggingHandlers;
      containerLogMaxSize = c.containerLogMaxSize;
      containerLogMaxFiles = c.containerLogMaxFiles;
      enableSystemLogHandler = c.enableSystemLogHandler;
      eventExport = c.eventExport;
      network = c.network;
      cgroups = c.cgroups;
      certificates = c.certificates;
      gc = c.gc;
    }

    public Builder gc(GcSettings value) {
      gc = value;
      return this;
    }

    /** The current garbage collection fields, for overlaying one of them. */
    public GcSettings gc() {
      return gc;
    }

    public Builder eventExport(EventExport value) {
      eventExport = value;
      return this;
    }

    public Builder network(NetworkSettings value) {
      network = value;
      return this;
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

    public Builder tlsCertFile(String value) {
      tlsCertFile = value;
      return this;
    }

    public Builder tlsPrivateKeyFile(String value) {
      tlsPrivateKeyFile = value;
      return this;
    }

    public Builder authentication(Authentication value) {
      authentication = value;
      return this;
    }

    /** The current {@code authentication}, for overlaying one of its fields. */
    public Authentication authentication() {
      return authentication;
    }

    public Builder authorization(Authorization value) {
      authorization = value;
      return this;
    }

    /** The current {@code authorization}, for overlaying one of its fields. */
    public Authorization authorization() {
      return authorization;
    }

    public Builder healthzPort(int value) {
      healthzPort = value;
      return this;
    }

    public Builder healthzBindAddress(String value) {
      healthzBindAddress = value;
      return this;
    }

    public Builder enableDebuggingHandlers(boolean value) {
      enableDebuggingHandlers = value;
      return this;
    }

    public Builder containerLogMaxSize(String value) {
      containerLogMaxSize = value;
      return this;
    }

    public Builder enableSystemLogHandler(boolean value) {
      enableSystemLogHandler = value;
      return this;
    }

    public Builder containerLogMaxFiles(int value) {
      containerLogMaxFiles = value;
      return this;
    }

    public Builder staticPodPath(String value) {
      staticPodPath = value;
      return this;
    }

    public Builder syncFrequency(Duration value) {
      syncFrequency = value;
      return this;
    }

    public Builder fileCheckFrequency(Duration value) {
      fileCheckFrequency = value;
      return this;
    }

    public Builder httpCheckFrequency(Duration value) {
      httpCheckFrequency = value;
      return this;
    }

    public Builder staticPodURL(String value) {
      staticPodURL = value;
      return this;
    }

    public Builder staticPodURLHeader(Map<String, List<String>> value) {
      staticPodURLHeader = value;
      return this;
    }

    public Builder readOnlyPort(int value) {
      readOnlyPort = value;
      return this;
    }

    public Builder port(int value) {
      port = value;
      return this;
    }

    public Builder address(String value) {
      address = value;
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
          staticPodPath,
          syncFrequency,
          fileCheckFrequency,
          httpCheckFrequency,
          staticPodURL,
          staticPodURLHeader,
          readOnlyPort,
          port,
          address,
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
          tlsCertFile,
          tlsPrivateKeyFile,
          authentication,
          authorization,
          healthzPort,
          healthzBindAddress,
          enableDebuggingHandlers,
          containerLogMaxSize,
          containerLogMaxFiles,
          enableSystemLogHandler,
          eventExport,
          network,
          cgroups,
          certificates,
          gc);
    }
  }
}
