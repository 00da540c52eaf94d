package io.jkubelet.agent;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.client.ApiClients;
import io.jkubelet.agent.client.ClientCertificates;
import io.jkubelet.agent.cm.ContainerManager;
import io.jkubelet.agent.cm.NodeAllocatable;
import io.jkubelet.agent.events.ApiEventSink;
import io.jkubelet.agent.events.CorrelatorOptions;
import io.jkubelet.agent.events.EventBroadcaster;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventStore;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.export.EventPipeline;
import io.jkubelet.agent.gc.ContainerGarbageCollector;
import io.jkubelet.agent.gc.ImageGarbageCollector;
import io.jkubelet.agent.gc.ImageGcManager;
import io.jkubelet.agent.gc.ImageGcPolicy;
import io.jkubelet.agent.jvm.HeapKeeper;
import io.jkubelet.agent.metrics.EventCaches;
import io.jkubelet.agent.metrics.EventCollector;
import io.jkubelet.agent.metrics.ExportCollector;
import io.jkubelet.agent.metrics.ImageGcCollector;
import io.jkubelet.agent.metrics.InstrumentedRuntime;
import io.jkubelet.agent.metrics.KubeletMetrics;
import io.jkubelet.agent.metrics.RestClientMetrics;
import io.jkubelet.agent.metrics.StatusCollector;
import io.jkubelet.agent.network.PluginNetwork;
import io.jkubelet.agent.network.PodNetwork;
import io.jkubelet.agent.node.HeartbeatClient;
import io.jkubelet.agent.node.NodeOptions;
import io.jkubelet.agent.node.NodeResources;
import io.jkubelet.agent.node.NodeStatusManager;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.agent.objects.WatchPodObjects;
import io.jkubelet.agent.pod.MirrorClient;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.setup.Dependencies;
import io.jkubelet.agent.setup.KubeletOptions;
import io.jkubelet.agent.stats.SummaryProvider;
import io.jkubelet.agent.status.ApiStatusManager;
import io.jkubelet.agent.status.LocalStatusManager;
import io.jkubelet.agent.status.StatusManager;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.workers.PodWorkers;
import io.jkubelet.config.KubeletConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root, as upstream's {@code NewMainKubelet} and {@code Kubelet.Run}: {@link
 * #create} builds every subsystem from the {@link KubeletOptions} and the {@link Dependencies} (the
 * parts that run pods in {@link AgentParts}, the API's and the servers' here), and the agent owns
 * the one ordered list of their lifecycles ({@link #lifecycles}), started in order and stopped in
 * reverse. The {@link Kubelet} it builds is the sync loop's handler.
 *
 * <p>Building does no I/O but the node's client certificate (TLS bootstrap, which upstream also
 * does before it builds the kubelet) and starts nothing; {@link #start()} does. Stopping leaves
 * every pod running: the next start adopts them. Parts that need the agent's later state (the
 * Node's readiness and pressure, whether a deleted pod is finished here) are given this object's
 * methods, as upstream gives its subsystems the {@code Kubelet} itself.
 */
public final class Agent implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(Agent.class);

  /** The pod status sync's re-check period, as upstream. */
  static final Duration STATUS_SYNC_PERIOD = Duration.ofSeconds(10);

  /**
   * What {@link AgentParts} is built from.
   *
   * @param apiClient the client of the API pod source, volumes' tokens and mirror pods; null
   *     standalone
   * @param statuses the status manager: local standalone, the API's in cluster mode
   * @param mirrors mirror pods; null standalone
   */
  record Inputs(
      KubeletOptions options,
      Dependencies deps,
      PodEngine engine,
      Events events,
      KubernetesClient apiClient,
      StatusManager statuses,
      MirrorClient mirrors,
      PodObjects objects) {
    Runtime runtime() {
      return engine.runtime();
    }

    ContainerManager containerManager() {
      return engine.cgroups();
    }

    PodNetwork network() {
      return engine.network();
    }

    KubeletMetrics metrics() {
      return events.metrics();
    }

    ImageGarbageCollector imageGc() {
      return engine.imageGc().<ImageGarbageCollector>map(g -> g).orElse(ImageGarbageCollector.NONE);
    }
  }

  /** The engine as the pods use it: wrapped by the network and the metrics, with its cgroups. */
  record PodEngine(
      Dependencies.Engine engine,
      Runtime runtime,
      ContainerManager cgroups,
      PodNetwork network,
      Optional<ImageGcManager> imageGc) {}

  /** The event pipeline and the metrics, built before anything that records. */
  record Events(KubeletMetrics metrics, EventPipeline pipeline) {
    EventRecorder recorder() {
      return pipeline.recorder();
    }

    EventBroadcaster broadcaster() {
      return pipeline.broadcaster();
    }

    EventStore store() {
      return pipeline.store();
    }

    Lifecycle lifecycle() {
      return pipeline.lifecycle();
    }
  }

  private final KubeletOptions options;
  private final AgentParts parts;
  private final AgentServers servers;
  private final NodeStatusManager node;
  private final List<Lifecycle> lifecycles;
  private final AtomicBoolean started = new AtomicBoolean();

  private Agent(
      KubeletOptions options,
      Dependencies deps,
      Events events,
      PodEngine engine,
      ClientCertificates certificates,
      ApiClients clients) {
    this.options = options;
    Inputs in =
        clients == null
            ? new Inputs(
                options,
                deps,
                engine,
                events,
                null,
                new LocalStatusManager(),
                null,
                PodObjects.NONE)
            : clusterInputs(options, deps, engine, events, clients);
    this.parts = new AgentParts(in);
    this.node = clients == null ? null : nodeStatus(in, clients);
    if (node != null) {
      in.network().podCidrsFrom(() -> podCidrs(node));
    }
    this.servers = new AgentServers(parts, certificates, node);
    // The one order. The pods' cgroups first: a failure refuses the start with nothing to stop.
    // The event pipeline next, so no event of the start or the stop is lost. The pod sources
    // early: the API source's first list is the longest wait of a start, and what they deliver
    // waits in the loop's channel until the loop runs. The servers start beside the first relist
    // and lists; the node registers, and so reports Ready, only once the kubelet API listens.
    List<Lifecycle> order = new ArrayList<>();
    if (certificates != null) {
      order.add(certificates);
    }
    order.add(in.containerManager());
    order.add(in.events().lifecycle());
    order.addAll(parts.sources);
    order.add(Lifecycle.of("runtime check", this::logRuntime, () -> {}));
    order.add(in.statuses());
    order.add(in.network());
    order.add(parts.probes);
    order.add(servers.servingIdentity());
    order.add(servers.starting());
    order.add(parts.pleg);
    order.add(parts.logCollector);
    order.add(in.objects());
    order.add(parts.executors());
    order.add(parts.loop);
    order.add(servers.started());
    order.add(parts.eviction);
    if (node != null) {
      order.add(node);
    }
    in.engine().imageGc().ifPresent(order::add);
    if (deps.ownsJvm()) {
      HeapKeeper.forThisJvm(deps.time().clock(), deps.time().schedulers()).ifPresent(order::add);
    }
    this.lifecycles = List.copyOf(order);
  }

  /**
   * Builds the agent. In cluster mode the node's client certificate comes first (TLS bootstrap,
   * retried until it succeeds: this blocks), then the API clients; then the engine is waited for.
   *
   * @throws io.jkubelet.config.ConfigException for a kubeconfig or certificate that cannot be used
   */
  public static Agent create(KubeletOptions options, Dependencies deps)
      throws InterruptedException {
    Events events = events(options, deps);
    ClientCertificates certificates = null;
    ApiClients clients = null;
    if (options.clusterMode()) {
      certificates =
          new ClientCertificates(
              options.subsystems().certificates(),
              options.nodeName(),
              deps.time(),
              events.recorder());
      certificates.load();
      clients = certificates.clients(new RestClientMetrics(events.metrics())::installOn);
    }
    Dependencies.Engine engine = deps.engine().get();
    PodNetwork network =
        PluginNetwork.create(options.subsystems().network(), deps.time(), events.recorder());
    PodEngine pods =
        new PodEngine(
            engine,
            new InstrumentedRuntime(
                network.wrap(engine.runtime()), events.metrics(), deps.time().clock()),
            deps.containerManager().apply(engine),
            network,
            imageGc(options, deps, engine, events));
    if (clients == null) {
      events
          .metrics()
          .register(
              new EventCollector(
                  events.broadcaster()::recorded, events.broadcaster()::dropped, null, null));
    }
    Agent agent = new Agent(options, deps, events, pods, certificates, clients);
    EventCaches.register(events.metrics().caches(), events.broadcaster(), events.store());
    return agent;
  }

  /** The event pipeline (see {@link EventPipeline}) and the metrics, which count its exports. */
  private static Events events(KubeletOptions options, Dependencies deps) {
    KubeletMetrics metrics = new KubeletMetrics(options.nodeName());
    EventPipeline pipeline =
        EventPipeline.create(
            options.nodeName(),
            options.config().eventExport(),
            options.rootDir(),
            options.config().server().readOnlyPort() != 0,
            deps.eventWatchers(),
            deps.time());
    pipeline.export().ifPresent(e -> metrics.register(new ExportCollector(e.exporters())));
    return new Events(metrics, pipeline);
  }

  /**
   * The image GC, run every {@code --image-gc-period} over the engine's images (every container of
   * the engine counts as a user, not only the node's); none at a high threshold of 100, which
   * disables it as upstream.
   */
  private static Optional<ImageGcManager> imageGc(
      KubeletOptions options, Dependencies deps, Dependencies.Engine engine, Events events) {
    var s = options.config().gc();
    ImageGcPolicy policy =
        new ImageGcPolicy(
            s.imageGCHighThresholdPercent(), s.imageGCLowThresholdPercent(), s.imageMinimumGCAge());
    Optional<ImageGcManager> gc =
        ImageGcManager.create(
            new ImageGcManager.Options(
                policy,
                options.podInfraImage(),
                Refs.node(options.nodeName()),
                options.engine().imageGcPeriod()),
            engine.images(),
            events.recorder(),
            deps.time());
    gc.ifPresent(g -> events.metrics().register(new ImageGcCollector(g::stats)));
    return gc;
  }

  /**
   * The API's parts: the pods' client, the status manager, mirror pods, the objects' watches, and
   * the events' sink, each on a client of its own.
   */
  private Inputs clusterInputs(
      KubeletOptions options,
      Dependencies deps,
      PodEngine engine,
      Events events,
      ApiClients clients) {
    KubeletConfiguration config = options.config();
    var clock = deps.time().clock();
    KubernetesClient pods = clients.newClient();
    ApiStatusManager statuses =
        new ApiStatusManager(
            clients.newClient(),
            clock,
            config.kubeAPIQPS(),
            config.kubeAPIBurst(),
            pod -> parts.reclaimed.test(pod),
            uid -> parts.podManager.apiObject(uid),
            STATUS_SYNC_PERIOD);
    // Events go to the API server on a client and budget of their own.
    ApiEventSink sink =
        ApiEventSink.create(
            clients.newClient(),
            clock,
            deps.time().sleeper(),
            CorrelatorOptions.defaults().withRate(config.eventRecordQPS(), config.eventBurst()));
    EventBroadcaster broadcaster = events.broadcaster();
    broadcaster.addWatcher("api", sink);
    events
        .metrics()
        .register(
            new EventCollector(
                broadcaster::recorded, broadcaster::dropped, sink::correlatorStats, sink::counts));
    events.metrics().register(new StatusCollector(statuses::stats));
    events.metrics().caches().addCorrelator("api", sink::correlatorCaches);
    return new Inputs(
        options,
        deps,
        engine,
        events,
        pods,
        statuses,
        new MirrorClient(pods, options.nodeName(), this::nodeUid),
        new WatchPodObjects(clients.newClient()));
  }

  /** The Node's UID once it is registered, for mirror pods' owner reference; else "". */
  private String nodeUid() {
    return node == null ? "" : node.lastReported().map(n -> n.getMetadata().getUid()).orElse("");
  }

  /** Registration, node status and Lease, on a client of its own. */
  private NodeStatusManager nodeStatus(Inputs in, ApiClients clients) {
    var config = options.config();
    var deps = in.deps();
    NodeOptions nodeOptions =
        new NodeOptions(
            options.nodeName(),
            deps.host().nodeIp(),
            options.nodeName(),
            new NodeOptions.Registration(options.node().labels(), options.node().taints()),
            new NodeOptions.Capacity(config.maxPods(), options.rootDir()),
            config.server().port(),
            NodeOptions.DEFAULT_KUBELET_VERSION,
            new NodeOptions.Heartbeat(
                config.nodeStatusUpdateFrequency(),
                config.nodeStatusReportFrequency(),
                config.nodeLeaseDurationSeconds()));
    Runtime runtime = in.runtime();
    return NodeStatusManager.create(
        nodeOptions,
        HeartbeatClient.create(clients.base(), nodeOptions, clients.customizer()),
        deps.time(),
        new NodeStatusManager.Sources(
            deps.host().machine(),
            () -> runtime.type() + "://" + runtime.version(),
            runtime::listImages,
            this::readiness,
            new NodeResources(
                NodeAllocatable.of(
                        deps.host().machine(), 0, config.reservations(), config.eviction())
                    .reservationByResource(),
                parts.eviction::nodeConditions)),
        in.events().recorder());
  }

  /** The Node's {@code spec.podCIDRs} (or its one {@code podCIDR}) as last reported; or none. */
  static List<String> podCidrs(NodeStatusManager node) {
    return node.lastReported()
        .map(Node::getSpec)
        .map(
            spec ->
                spec.getPodCIDRs() != null && !spec.getPodCIDRs().isEmpty()
                    ? spec.getPodCIDRs()
                    : spec.getPodCIDR() == null ? List.<String>of() : List.of(spec.getPodCIDR()))
        .orElse(List.of());
  }

  private void logRuntime() {
    Runtime runtime = parts.in.runtime();
    try {
      log.info("Container runtime: {} {}", runtime.type(), runtime.version());
    } catch (RuntimeException e) {
      log.error(
          "Container runtime is not answering ({}); pods will start once it does", e.getMessage());
    }
    parts
        .in
        .events()
        .recorder()
        .event(
            Refs.node(options.nodeName()),
            io.jkubelet.agent.events.EventType.Normal,
            "Starting",
            "Starting kubelet.");
  }

  /** Starts every subsystem in order; a failure stops those started and is thrown. */
  @Override
  public void start() {
    if (!started.compareAndSet(false, true)) {
      return;
    }
    log.info(
        "Starting jkubelet on node {} ({}, static pods from {})",
        options.nodeName(),
        options.clusterMode() ? "cluster mode" : "standalone",
        options.config().staticPods().staticPodPath().isEmpty()
            ? "nowhere"
            : options.config().staticPods().staticPodPath());
    List<Lifecycle> done = new ArrayList<>();
    try {
      for (Lifecycle l : lifecycles) {
        l.start();
        done.add(l);
      }
    } catch (RuntimeException e) {
      started.set(false);
      stopAll(done);
      throw e;
    }
  }

  /** Stops every subsystem in reverse order; a stop that fails is logged and the rest go on. */
  @Override
  public void stop() {
    if (!started.compareAndSet(true, false)) {
      return;
    }
    log.info("Stopping jkubelet; pods keep running");
    stopAll(lifecycles);
  }

  private static void stopAll(List<Lifecycle> started) {
    for (int i = started.size() - 1; i >= 0; i--) {
      try {
        started.get(i).stop();
      } catch (RuntimeException e) {
        log.error("Stopping {} failed: {}", started.get(i), e.toString(), e);
      }
    }
  }

  /** The subsystems' lifecycles in their start order. */
  List<Lifecycle> lifecycles() {
    return lifecycles;
  }

  /**
   * The node's readiness: the loop, the PLEG, the runtime, and the pods' network (upstream's {@code
   * runtime network not ready}).
   */
  @Override
  public Health healthy() {
    return readiness();
  }

  private Health readiness() {
    if (parts == null || servers == null) {
      return Health.failing("jkubelet is starting");
    }
    for (Health h : List.of(parts.loop.healthy(), parts.pleg.healthy(), servers.runtimeHealth())) {
      if (!h.ok()) {
        return h;
      }
    }
    return parts.in.network().networkError().map(Health::failing).orElse(Health.OK);
  }

  /**
   * The metrics that {@code /metrics}, {@code /metrics/probes} and {@code /metrics/resource} serve.
   */
  public KubeletMetrics metrics() {
    return parts.in.metrics();
  }

  /** The node's and pods' resource usage, for {@code /stats/summary}. */
  public SummaryProvider summary() {
    return parts.summary;
  }

  /** The port the kubelet API listens on (0 before start). */
  public int apiPort() {
    return servers.api().port();
  }

  /** The port the read-only server listens on (0 when it is off). */
  public int readOnlyPort() {
    return servers.readOnly() == null ? 0 : servers.readOnly().port();
  }

  /** Dead containers and sandboxes, for whoever must free disk at once (eviction). */
  public ContainerGarbageCollector containerGarbageCollector() {
    return parts.containerGc;
  }

  /** The desired pods, each with the status jkubelet computed for it: {@code /pods}. */
  List<Pod> podsWithStatus() {
    return parts.podsWithStatus();
  }

  // For tests.
  PodManager podManager() {
    return parts.podManager;
  }

  PodWorkers workers() {
    return parts.workers;
  }

  PodObjects objects() {
    return parts.in.objects();
  }

  Predicate<Pod> reclaimed() {
    return parts.reclaimed;
  }
}
