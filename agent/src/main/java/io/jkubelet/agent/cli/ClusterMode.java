package io.jkubelet.agent.cli;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.jkubelet.agent.Agent;
import io.jkubelet.agent.EvictionWiring;
import io.jkubelet.agent.KubeletOptions;
import io.jkubelet.agent.Setup;
import io.jkubelet.agent.events.ApiEventSink;
import io.jkubelet.agent.events.CorrelatorOptions;
import io.jkubelet.agent.events.EventBroadcaster;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.metrics.EventCollector;
import io.jkubelet.agent.metrics.RestClientMetrics;
import io.jkubelet.agent.metrics.StatusCollector;
import io.jkubelet.agent.network.PodNetwork;
import io.jkubelet.agent.node.HeartbeatClient;
import io.jkubelet.agent.node.HostFacts;
import io.jkubelet.agent.node.NodeOptions;
import io.jkubelet.agent.node.NodeResources;
import io.jkubelet.agent.node.NodeStatusManager;
import io.jkubelet.agent.objects.WatchPodObjects;
import io.jkubelet.agent.pod.MirrorClient;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.status.ApiStatusManager;
import io.jkubelet.agent.util.Lifecycle.Health;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.KubeletConfiguration;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * Builds a cluster-mode agent from {@code --kubeconfig}: three clients of the same API server, so
 * that node heartbeats, pod status and the pod watch never wait on each other's traffic; node
 * registration with its Lease; the API status manager; and mirror pods.
 */
final class ClusterMode {
  /** The node's status sync runs from the start; status sync every 10 s, as upstream. */
  static final Duration STATUS_SYNC_PERIOD = Duration.ofSeconds(10);

  private ClusterMode() {}

  static Agent build(
      KubeletOptions options,
      HostFacts host,
      Config base,
      Map<String, String> nodeLabels,
      List<io.fabric8.kubernetes.api.model.Taint> taints,
      Runtime runtime,
      EventRecorder recorder,
      Time time,
      EventBroadcaster broadcaster,
      Setup.EventPipeline events,
      Agent.Monitoring monitoring,
      PodNetwork network,
      CertificateWiring certificates,
      io.jkubelet.agent.cm.ContainerManager containerManager) {
    KubeletConfiguration config = options.config();
    RestClientMetrics requests = new RestClientMetrics(monitoring.metrics());
    // Every client: the shared engine, the metrics interceptor, and the node's client certificate
    // where jkubelet manages it.
    Consumer<HttpClient.Builder> tls = certificates.tls();
    UnaryOperator<KubernetesClientBuilder> customize =
        b ->
            ApiHttpClients.small(b)
                .withHttpClientBuilderConsumer(
                    h -> {
                      requests.installOn(h);
                      tls.accept(h);
                    });
    Function<Config, KubernetesClient> client = c -> client(c, customize);
    Clock clock = time.clock();
    CorrelatorOptions rate =
        CorrelatorOptions.defaults().withRate(config.eventRecordQPS(), config.eventBurst());
    NodeOptions nodeOptions = nodeOptions(options, host.nodeIp(), nodeLabels, taints);
    AtomicReference<Agent> agent = new AtomicReference<>();
    KubernetesClient heartbeats = HeartbeatClient.create(base, nodeOptions, customize);
    NodeStatusManager node =
        NodeStatusManager.create(
            nodeOptions,
            heartbeats,
            time,
            new NodeStatusManager.Sources(
                host.machine(),
                () -> runtime.type() + "://" + runtime.version(),
                runtime::listImages,
                () ->
                    agent.get() == null
                        ? Health.failing("jkubelet is starting")
                        : agent.get().healthy(),
                new NodeResources(
                    EvictionWiring.reservation(config, host.machine()),
                    () -> agent.get() == null ? Set.of() : agent.get().pressure())),
            recorder);
    network.podCidrsFrom(() -> podCidrs(node));
    KubernetesClient pods = client.apply(base);
    MirrorClient mirrors =
        new MirrorClient(
            pods,
            options.nodeName(),
            () -> node.lastReported().map(n -> n.getMetadata().getUid()).orElse(""));
    ApiStatusManager statuses =
        statusManager(
            client.apply(base),
            config,
            clock,
            p -> agent.get() != null && agent.get().reclaimed().test(p),
            uid -> agent.get() == null ? Optional.empty() : agent.get().seenInApi(uid));
    // Events go to the API server on a client and budget of their own.
    ApiEventSink sink = ApiEventSink.create(client.apply(base), clock, time.sleeper(), rate);
    broadcaster.addWatcher("api", sink);
    monitoring
        .metrics()
        .register(
            new EventCollector(
                broadcaster::recorded, broadcaster::dropped, sink::correlatorStats, sink::counts));
    monitoring.metrics().register(new StatusCollector(statuses::stats));
    monitoring.metrics().caches().addCorrelator("api", sink::correlatorCaches);
    Agent kubelet =
        new Agent(
            new Setup(
                options,
                host,
                runtime,
                recorder,
                statuses,
                time,
                new Setup.Cluster(
                    pods,
                    node,
                    mirrors,
                    new WatchPodObjects(client.apply(base)),
                    certificates::healthy,
                    certificates.serving(pods, node)),
                events,
                network,
                containerManager),
            monitoring);
    agent.set(kubelet);
    return kubelet;
  }

  /** The Node's {@code spec.podCIDRs} (or its one {@code podCIDR}) as last reported; or none. */
  static List<String> podCidrs(NodeStatusManager node) {
    return node.lastReported()
        .map(io.fabric8.kubernetes.api.model.Node::getSpec)
        .map(
            spec ->
                spec.getPodCIDRs() != null && !spec.getPodCIDRs().isEmpty()
                    ? spec.getPodCIDRs()
                    : spec.getPodCIDR() == null ? List.<String>of() : List.of(spec.getPodCIDR()))
        .orElse(List.of());
  }

  private static ApiStatusManager statusManager(
      KubernetesClient client,
      KubeletConfiguration config,
      Clock clock,
      Predicate<Pod> reclaimed,
      Function<String, Optional<Pod>> seen) {
    return new ApiStatusManager(
        client,
        clock,
        config.kubeAPIQPS(),
        config.kubeAPIBurst(),
        reclaimed,
        seen,
        STATUS_SYNC_PERIOD);
  }

  private static NodeOptions nodeOptions(
      KubeletOptions options,
      String nodeIp,
      Map<String, String> nodeLabels,
      List<io.fabric8.kubernetes.api.model.Taint> taints) {
    KubeletConfiguration config = options.config();
    return new NodeOptions(
        options.nodeName(),
        nodeIp,
        options.nodeName(),
        new NodeOptions.Registration(nodeLabels, taints),
        new NodeOptions.Capacity(config.maxPods(), options.rootDir()),
        config.server().port(),
        NodeOptions.DEFAULT_KUBELET_VERSION,
        new NodeOptions.Heartbeat(
            config.nodeStatusUpdateFrequency(),
            config.nodeStatusReportFrequency(),
            config.nodeLeaseDurationSeconds()));
  }

  /**
   * A client of its own (its own connections), with few retries: callers retry on their terms. Its
   * requests are counted in {@code rest_client_requests_total}; it presents the node's client
   * certificate where {@link CertificateWiring} manages it.
   */
  private static KubernetesClient client(
      Config base, UnaryOperator<KubernetesClientBuilder> customize) {
    Config c = new ConfigBuilder(base).withRequestRetryBackoffLimit(1).build();
    return customize.apply(new KubernetesClientBuilder().withConfig(c)).build();
  }
}
