package io.jkubelet.config;

import java.time.Duration;
import java.util.List;

/**
 * Mutable builder of {@link KubeletConfiguration}. Each setter replaces one field and returns this
 * builder; nothing is validated until {@link ConfigValidator#validate}.
 */
public final class KubeletConfigurationBuilder {
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
  private ReservationSettings reservations = ReservationSettings.DEFAULTS;
  private EvictionSettings eviction = EvictionSettings.DEFAULTS;
  private GcSettings gc = GcSettings.DEFAULTS;

  KubeletConfigurationBuilder() {}

  KubeletConfigurationBuilder(KubeletConfiguration c) {
    staticPods = c.staticPods();
    syncFrequency = c.syncFrequency();
    maxPods = c.maxPods();
    nodeStatusUpdateFrequency = c.nodeStatusUpdateFrequency();
    nodeStatusReportFrequency = c.nodeStatusReportFrequency();
    nodeLeaseDurationSeconds = c.nodeLeaseDurationSeconds();
    eventRecordQPS = c.eventRecordQPS();
    eventBurst = c.eventBurst();
    kubeAPIQPS = c.kubeAPIQPS();
    kubeAPIBurst = c.kubeAPIBurst();
    registerNode = c.registerNode();
    podInfraOomScoreAdj = c.podInfraOomScoreAdj();
    allowedUnsafeSysctls = c.allowedUnsafeSysctls();
    clusterDNS = c.clusterDNS();
    clusterDomain = c.clusterDomain();
    resolvConf = c.resolvConf();
    server = c.server();
    containerLogs = c.containerLogs();
    eventExport = c.eventExport();
    network = c.network();
    cgroups = c.cgroups();
    certificates = c.certificates();
    reservations = c.reservations();
    eviction = c.eviction();
    gc = c.gc();
  }

  public KubeletConfigurationBuilder reservations(ReservationSettings value) {
    reservations = value;
    return this;
  }

  /** The current {@code kubeReserved} and {@code systemReserved}, for overlaying. */
  public ReservationSettings reservations() {
    return reservations;
  }

  public KubeletConfigurationBuilder eviction(EvictionSettings value) {
    eviction = value;
    return this;
  }

  /** The current eviction fields, for overlaying one of them. */
  public EvictionSettings eviction() {
    return eviction;
  }

  public KubeletConfigurationBuilder staticPods(StaticPodSettings value) {
    staticPods = value;
    return this;
  }

  /** The current static pod source fields, for overlaying one of them. */
  public StaticPodSettings staticPods() {
    return staticPods;
  }

  public KubeletConfigurationBuilder server(ServerSettings value) {
    server = value;
    return this;
  }

  /** The current kubelet API fields, for overlaying one of them. */
  public ServerSettings server() {
    return server;
  }

  public KubeletConfigurationBuilder containerLogs(ContainerLogSettings value) {
    containerLogs = value;
    return this;
  }

  /** The current container log fields, for overlaying one of them. */
  public ContainerLogSettings containerLogs() {
    return containerLogs;
  }

  public KubeletConfigurationBuilder eventExport(EventExport value) {
    eventExport = value;
    return this;
  }

  public KubeletConfigurationBuilder network(NetworkSettings value) {
    network = value;
    return this;
  }

  public KubeletConfigurationBuilder gc(GcSettings value) {
    gc = value;
    return this;
  }

  /** The current garbage collection fields, for overlaying one of them. */
  public GcSettings gc() {
    return gc;
  }

  public KubeletConfigurationBuilder certificates(CertificateSettings value) {
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

  public KubeletConfigurationBuilder cgroups(CgroupSettings value) {
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

  public KubeletConfigurationBuilder syncFrequency(Duration value) {
    syncFrequency = value;
    return this;
  }

  public KubeletConfigurationBuilder maxPods(int value) {
    maxPods = value;
    return this;
  }

  public KubeletConfigurationBuilder nodeStatusUpdateFrequency(Duration value) {
    nodeStatusUpdateFrequency = value;
    return this;
  }

  public KubeletConfigurationBuilder nodeStatusReportFrequency(Duration value) {
    nodeStatusReportFrequency = value;
    return this;
  }

  public KubeletConfigurationBuilder nodeLeaseDurationSeconds(int value) {
    nodeLeaseDurationSeconds = value;
    return this;
  }

  public KubeletConfigurationBuilder eventRecordQPS(int value) {
    eventRecordQPS = value;
    return this;
  }

  public KubeletConfigurationBuilder eventBurst(int value) {
    eventBurst = value;
    return this;
  }

  public KubeletConfigurationBuilder kubeAPIQPS(int value) {
    kubeAPIQPS = value;
    return this;
  }

  public KubeletConfigurationBuilder kubeAPIBurst(int value) {
    kubeAPIBurst = value;
    return this;
  }

  public KubeletConfigurationBuilder registerNode(boolean value) {
    registerNode = value;
    return this;
  }

  public KubeletConfigurationBuilder podInfraOomScoreAdj(int value) {
    podInfraOomScoreAdj = value;
    return this;
  }

  public KubeletConfigurationBuilder allowedUnsafeSysctls(List<String> value) {
    allowedUnsafeSysctls = value;
    return this;
  }

  public KubeletConfigurationBuilder clusterDNS(List<String> value) {
    clusterDNS = value;
    return this;
  }

  public KubeletConfigurationBuilder clusterDomain(String value) {
    clusterDomain = value;
    return this;
  }

  public KubeletConfigurationBuilder resolvConf(String value) {
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
        reservations,
        eviction,
        gc);
  }
}
