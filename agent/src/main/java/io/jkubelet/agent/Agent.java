package io.jkubelet.agent;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.certificates.CertificateManager;
import io.jkubelet.agent.client.ApiClients;
import io.jkubelet.agent.client.ClientCertificates;
import io.jkubelet.agent.client.ContentType;
import io.jkubelet.agent.client.RateLimit;
import io.jkubelet.agent.cm.NodeAllocatable;
import io.jkubelet.agent.events.ApiEventSink;
import io.jkubelet.agent.events.CorrelatorOptions;
import io.jkubelet.agent.events.EventBroadcaster;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.export.EventPipeline;
import io.jkubelet.agent.gc.ImageGcManager;
import io.jkubelet.agent.gc.ImageGcPolicy;
import io.jkubelet.agent.jvm.HeapKeeper;
import io.jkubelet.agent.loop.SyncLoop;
import io.jkubelet.agent.metrics.EventCaches;
import io.jkubelet.agent.metrics.EventCollector;
import io.jkubelet.agent.metrics.ExportCollector;
import io.jkubelet.agent.metrics.ImageGcCollector;
import io.jkubelet.agent.metrics.InstrumentedRuntime;
import io.jkubelet.agent.metrics.KubeletMetrics;
import io.jkubelet.agent.metrics.PodStartPhaseMetrics;
import io.jkubelet.agent.metrics.RestClientMetrics;
import io.jkubelet.agent.metrics.StatusCollector;
import io.jkubelet.agent.network.PluginNetwork;
import io.jkubelet.agent.network.PodNetwork;
import io.jkubelet.agent.node.HeartbeatClient;
import io.jkubelet.agent.node.NodeOptions;
import io.jkubelet.agent.node.NodeResources;
import io.jkubelet.agent.node.NodeStatusManager;
import io.jkubelet.agent.objects.WatchPodObjects;
import io.jkubelet.agent.parts.Inputs;
import io.jkubelet.agent.parts.PodEngine;
import io.jkubelet.agent.parts.PodParts;
import io.jkubelet.agent.parts.ServerParts;
import io.jkubelet.agent.pod.MirrorClient;
import io.jkubelet.agent.runtime.CallsInFlight;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.server.HealthzPort;
import io.jkubelet.agent.setup.Dependencies;
import io.jkubelet.agent.setup.KubeletOptions;
import io.jkubelet.agent.status.ApiStatusManager;
import io.jkubelet.agent.status.LocalStatusManager;
import io.jkubelet.agent.status.StatusManager;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.LifecycleList;
import io.jkubelet.agent.util.Memo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root, as upstream's {@code NewMainKubelet} and {@code Kubelet.Run}: {@link
 * #create} builds every subsystem from the {@link KubeletOptions} and the {@link Dependencies} (the
 * event pipeline, the API's parts and the node's status here; the parts that run pods and the
 * servers by {@code parts}), and the agent owns the one ordered list of their lifecycles, started
 * in order and stopped in reverse. The {@link Kubelet} it builds is the sync loop's handler.
 *
 * <p>Building does no I/O but the node's client certificate (TLS bootstrap, which upstream also
 * does before it builds the kubelet) and starts nothing but the healthz port, which answers from
 * the first step ({@link HealthzPort}: kubeadm's join waits for it); {@link #start()} does the
 * rest. Stopping leaves every pod running: the next start adopts them. Parts that need the agent's
 * later state (the Node's readiness and pressure, whether a deleted pod is finished here) are given
 * this object's methods, as upstream gives its subsystems the {@code Kubelet} itself.
 *
 * <p>A few lines over the house's 400: this is the one composition root, the ordered lifecycle list
 * and the methods the parts are given. The pods' half is already {@link
 * io.jkubelet.agent.parts.PodParts}; the next cut is the node's half (registration, status, lease,
 * certificates) into a {@code parts.NodeParts}, planned, not done.
 */
public final class Agent implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(Agent.class);

  static final Duration RUNTIME_CHECK_TTL = Duration.ofSeconds(5);

  private final KubeletOptions options;
  private final Inputs in;
  private final PodParts parts;
  private final NodeStatusManager node;
  private final SyncLoop loop;
  private final LifecycleList lifecycles;

  private Agent(
      KubeletOptions options,
      Dependencies deps,
      KubeletMetrics metrics,
      EventPipeline events,
      PodEngine engine,
      ClientCertificates certificates,
      ApiClients clients,
      HealthzPort healthzPort) {
    this.options = options;
    var config = options.config();
    StatusManager statuses = new LocalStatusManager();
    Inputs.Cluster cluster = Inputs.Cluster.NONE;
    if (clients != null) {
      // The pods', statuses', mirror pods' and objects' requests share upstream's kube-api limit;
      // the events and the heartbeat have their own.
      RateLimit limit =
          RateLimit.kubeApi(config.client().kubeAPIQPS(), config.client().kubeAPIBurst());
      ApiClients kube = clients.limited("kube-api", limit, deps.time());
      ContentType.logUsed(config.client().contentType());
      KubernetesClient pods = kube.newClient();
      ApiStatusManager api = apiStatuses(kube, limit, deps);
      statuses = api;
      metrics.register(apiEvents(clients, deps, events.broadcaster(), metrics));
      metrics.register(new StatusCollector(api::stats));
      cluster =
          new Inputs.Cluster(
              pods,
              new MirrorClient(pods, options.nodeName(), this::nodeUid),
              WatchPodObjects.create(kube.newClient()));
    } else {
      metrics.register(
          new EventCollector(
              events.broadcaster()::recorded, events.broadcaster()::dropped, null, null));
    }
    this.in =
        new Inputs(
            options,
            deps,
            engine,
            metrics,
            events,
            statuses,
            NodeAllocatable.of(
                deps.host().machine(),
                0,
                config.resources().reservations(),
                config.resources().eviction()),
            cluster);
    this.parts = new PodParts(in);
    this.node = clients == null ? null : nodeStatus(clients);
    if (node != null) {
      in.network().podCidrsFrom(node::podCidrs);
    }
    this.loop = Kubelet.loop(parts, deps.time());
    CertificateManager serving =
        certificates == null || node == null ? null : certificates.serving(in.apiClient(), node);
    Map<String, Supplier<Health>> clusterChecks = new LinkedHashMap<>();
    if (node != null) {
      clusterChecks.put("node", node::healthy);
      clusterChecks.put("client-certificate", certificates::healthy);
    }
    ServerParts servers =
        new ServerParts(
            parts,
            new ServerParts.Checks(
                loop::healthy,
                new Memo<>(RUNTIME_CHECK_TTL, deps.time().clock(), this::runtimeHealth),
                clusterChecks),
            serving,
            healthzPort);
    // The one order. The pods' cgroups first: a failure refuses the start with nothing to stop.
    // The event pipeline next, so no event of the start or the stop is lost. The pod sources
    // early: the API source's first list is the longest wait of a start, and what they deliver
    // waits in the loop's channel until the loop runs. The servers start beside the first relist
    // and lists; the node registers, and so reports Ready, only once the kubelet API listens.
    List<Lifecycle> order = new ArrayList<>();
    Optional.ofNullable(certificates).ifPresent(order::add);
    order.add(in.containerManager());
    order.add(events.lifecycle());
    order.addAll(parts.sources);
    order.add(Lifecycle.of("runtime check", this::logRuntime, () -> {}));
    order.add(parts.runtime);
    order.add(statuses);
    order.add(in.network());
    order.add(parts.probes);
    order.add(parts.imagePulls);
    order.add(parts.terminations);
    order.add(servers.servingIdentity());
    order.add(servers.starting());
    order.add(parts.pleg);
    order.add(parts.oomSource);
    order.add(parts.logCollector);
    order.add(in.objects());
    order.add(parts.executors());
    order.add(loop);
    order.add(servers.started());
    order.add(parts.eviction);
    Optional.ofNullable(node).ifPresent(order::add);
    order.add(parts.shutdown);
    engine.imageGc().ifPresent(order::add);
    if (deps.ownsJvm()) {
      HeapKeeper.forThisJvm(deps.time().clock(), deps.time().schedulers()).ifPresent(order::add);
    }
    this.lifecycles = new LifecycleList(order);
  }

  /**
   * Builds the agent. The healthz port is served first (see {@link HealthzPort}: it answers "ok"
   * until the kubelet API hands it the node's checks). In cluster mode the node's client
   * certificate comes next (TLS bootstrap, retried until it succeeds: this blocks), then the API
   * clients; then the engine is waited for.
   *
   * @throws io.jkubelet.config.ConfigException for a kubeconfig, certificate or export target that
   *     cannot be used
   */
  public static Agent create(KubeletOptions options, Dependencies deps)
      throws InterruptedException {
    var healthz = options.config().server().healthz();
    HealthzPort healthzPort =
        deps.servesPorts()
            ? new HealthzPort(healthz.healthzBindAddress(), healthz.healthzPort())
            : HealthzPort.NONE;
    healthzPort.start();
    try {
      return create(options, deps, healthzPort);
    } catch (RuntimeException | InterruptedException e) {
      healthzPort.stop();
      throw e;
    }
  }

  private static Agent create(KubeletOptions options, Dependencies deps, HealthzPort healthzPort)
      throws InterruptedException {
    KubeletMetrics metrics = new KubeletMetrics(options.nodeName());
    EventPipeline events =
        EventPipeline.create(
            options.nodeName(),
            options.config().events().export(),
            options.rootDir(),
            options.config().server().readOnlyPort() != 0,
            deps.eventWatchers(),
            deps.time());
    events.export().ifPresent(e -> metrics.register(new ExportCollector(e.exporters())));
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
      clients = certificates.clients(new RestClientMetrics(metrics)::installOn);
    }
    Dependencies.Engine engine = deps.engine().get();
    PodNetwork network =
        PluginNetwork.create(options.subsystems().network(), deps.time(), events.recorder());
    // The image GC, every --image-gc-period, over all the engine's images: every container of the
    // engine counts as a user, not only the node's.
    Optional<ImageGcManager> imageGc =
        ImageGcManager.create(
            new ImageGcManager.Options(
                ImageGcPolicy.of(options.config().resources().gc()),
                options.podInfraImage(),
                Refs.node(options.nodeName()),
                options.engine().imageGcPeriod()),
            engine.images(),
            events.recorder(),
            deps.time());
    PodTimelines timelines =
        options.config().pods().lifecycle().podStartTimeline()
            ? PodTimelines.create(
                deps.time().clock(),
                options.rootDir().resolve("pods"),
                new PodStartPhaseMetrics(metrics))
            : PodTimelines.NONE;
    PodEngine pods =
        new PodEngine(
            engine,
            new CallsInFlight(
                new InstrumentedRuntime(
                    network.wrap(engine.runtime(), timelines), metrics, deps.time().clock()),
                deps.time().clock()),
            deps.containerManager().apply(engine),
            network,
            imageGc,
            timelines);
    pods.imageGc().ifPresent(g -> metrics.register(new ImageGcCollector(g::stats)));
    Agent agent =
        new Agent(options, deps, metrics, events, pods, certificates, clients, healthzPort);
    EventCaches.register(metrics.caches(), events.broadcaster(), events.store());
    return agent;
  }

  /** The pods' status manager on a client of its own; it reads the parts, built after it. */
  private ApiStatusManager apiStatuses(ApiClients clients, RateLimit limit, Dependencies deps) {
    return new ApiStatusManager(
        clients.newClient(),
        deps.time().clock(),
        (int) limit.qps(),
        limit.burst(),
        pod -> parts.reclaimed.test(pod),
        uid -> parts.podManager.apiObject(uid),
        ApiStatusManager.SYNC_PERIOD);
  }

  /** Events to the API server, on a client and budget of their own; what the events count. */
  private EventCollector apiEvents(
      ApiClients clients, Dependencies deps, EventBroadcaster broadcaster, KubeletMetrics metrics) {
    var config = options.config();
    ApiEventSink sink =
        ApiEventSink.create(
            clients.newClient(),
            deps.time().clock(),
            deps.time().sleeper(),
            CorrelatorOptions.defaults()
                .withSpamFilter(
                    config.events().eventSpamRefillPeriod(), config.events().eventSpamBurst()),
            config.events().eventRecordQPS(),
            config.events().eventBurst());
    broadcaster.addWatcher("api", sink);
    metrics.caches().addCorrelator("api", sink::correlatorCaches);
    return new EventCollector(
        broadcaster::recorded, broadcaster::dropped, sink::correlatorStats, sink::counts);
  }

  /** The Node's UID once it is registered, for mirror pods' owner reference; else "". */
  private String nodeUid() {
    return node == null ? "" : node.lastReported().map(n -> n.getMetadata().getUid()).orElse("");
  }

  /** Registration, node status and Lease, on a client of its own. */
  private NodeStatusManager nodeStatus(ApiClients clients) {
    var deps = in.deps();
    NodeOptions nodeOptions =
        NodeOptions.of(
            options.config(),
            options.nodeName(),
            deps.host().nodeIp(),
            new NodeOptions.Registration(
                options.node().labels(),
                options.node().taints(),
                options.config().node().providerID(),
                options.config().node().registerNode()),
            options.rootDir());
    Runtime runtime = in.runtime();
    return NodeStatusManager.create(
        nodeOptions,
        HeartbeatClient.create(clients.base(), nodeOptions, clients.customizer()),
        deps.time(),
        new NodeStatusManager.Sources(
            deps.host().machine(),
            () -> runtime.type() + "://" + runtime.version(),
            runtime::listImages,
            this::healthy,
            new NodeResources(
                in.allocatable().reservationByResource(), parts.eviction::nodeConditions)),
        in.events().recorder());
  }

  private void logRuntime() {
    Runtime runtime = in.runtime();
    try {
      log.info("Container runtime: {} {}", runtime.type(), runtime.version());
    } catch (RuntimeException e) {
      log.error(
          "Container runtime is not answering ({}); pods will start once it does", e.getMessage());
    }
    in.events()
        .recorder()
        .event(Refs.node(options.nodeName()), EventType.Normal, "Starting", "Starting kubelet.");
  }

  /**
   * Starts every subsystem in order; a failure stops those started and is thrown. A stop during the
   * start (SIGTERM while the API source waits for its first list) stops what started, and the rest
   * never starts.
   */
  @Override
  public void start() {
    String manifests = options.config().pods().staticPods().staticPodPath();
    log.info(
        "Starting jkubelet on node {} ({}, static pods from {})",
        options.nodeName(),
        options.clusterMode() ? "cluster mode" : "standalone",
        manifests.isEmpty() ? "nowhere" : manifests);
    if (!lifecycles.start()) {
      log.info("jkubelet was stopped before its start had finished");
    }
  }

  /** Stops every subsystem in reverse order; a stop that fails is logged and the rest go on. */
  @Override
  public void stop() {
    log.info("Stopping jkubelet; pods keep running");
    lifecycles.stop();
  }

  /**
   * The node's readiness: not while the node shuts down (upstream's {@code node is shutting down}),
   * the loop, the PLEG, the runtime, and the pods' network (upstream's {@code runtime network not
   * ready}).
   */
  @Override
  public Health healthy() {
    if (loop == null) {
      return Health.failing("jkubelet is starting");
    }
    Optional<String> shuttingDown = parts.shutdown.shutdownStatus();
    if (shuttingDown.isPresent()) {
      return Health.failing(shuttingDown.get());
    }
    // Upstream's runtimeState.runtimeErrors, then the network's, aggregated as upstream prints
    // them.
    return Health.all(
        List.of(
            runtimeHealth(),
            parts.pleg.healthy(),
            loop.healthy(),
            in.network().networkError().map(Health::failing).orElse(Health.OK)));
  }

  /**
   * Upstream's "container runtime is down" when the engine does not answer its version (its ping)
   * in time; why is logged. A call that hangs for one container does not make the node NotReady.
   */
  private Health runtimeHealth() {
    try {
      parts.runtime.version();
      return Health.OK;
    } catch (RuntimeException e) {
      log.warn("Container runtime sanity check failed: {}", e.getMessage());
      return Health.failing("container runtime is down");
    }
  }

  // For tests.
  List<Pod> podsWithStatus() {
    return parts.podsWithStatus();
  }

  KubeletMetrics metrics() {
    return in.metrics();
  }
}
