package io.jkubelet.agent;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.certificates.CertificateManager;
import io.jkubelet.agent.client.ApiClients;
import io.jkubelet.agent.client.ClientCertificates;
import io.jkubelet.agent.cm.NodeAllocatable;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.export.EventPipeline;
import io.jkubelet.agent.gc.ImageGcManager;
import io.jkubelet.agent.gc.ImageGcPolicy;
import io.jkubelet.agent.jvm.HeapKeeper;
import io.jkubelet.agent.jvm.NativeHeapTrimmer;
import io.jkubelet.agent.loop.SyncLoop;
import io.jkubelet.agent.metrics.EventCaches;
import io.jkubelet.agent.metrics.EventCollector;
import io.jkubelet.agent.metrics.ExportCollector;
import io.jkubelet.agent.metrics.ImageGcCollector;
import io.jkubelet.agent.metrics.InstrumentedRuntime;
import io.jkubelet.agent.metrics.KubeletMetrics;
import io.jkubelet.agent.metrics.PodStartPhaseMetrics;
import io.jkubelet.agent.metrics.RestClientMetrics;
import io.jkubelet.agent.network.PluginNetwork;
import io.jkubelet.agent.network.PodNetwork;
import io.jkubelet.agent.node.NodeStatusManager;
import io.jkubelet.agent.parts.Inputs;
import io.jkubelet.agent.parts.NodeParts;
import io.jkubelet.agent.parts.PodEngine;
import io.jkubelet.agent.parts.PodParts;
import io.jkubelet.agent.parts.ServerParts;
import io.jkubelet.agent.runtime.CallsInFlight;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.server.HealthzPort;
import io.jkubelet.agent.setup.Dependencies;
import io.jkubelet.agent.setup.KubeletOptions;
import io.jkubelet.agent.status.LocalStatusManager;
import io.jkubelet.agent.status.StatusManager;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.util.ApiSerialization;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.LifecycleList;
import io.jkubelet.agent.util.LoopWatchdog;
import io.jkubelet.agent.util.Memo;
import io.jkubelet.agent.util.NettyLoops;
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
 * event pipeline, the client certificate and the engine here; the pods', node's and servers' parts
 * by {@code parts}), and the agent owns the one ordered list of their lifecycles, started in order
 * and stopped in reverse. The {@link Kubelet} it builds is the sync loop's handler.
 *
 * <p>Building does no I/O but the node's client certificate (TLS bootstrap, which upstream also
 * does before it builds the kubelet) and starts nothing but the healthz port, which answers from
 * the first step ({@link HealthzPort}: kubeadm's join waits for it); {@link #start()} does the
 * rest. Stopping leaves every pod running: the next start adopts them. Parts that need the agent's
 * later state (the Node's readiness and pressure, whether a deleted pod is finished here) are given
 * this object's methods, as upstream gives its subsystems the {@code Kubelet} itself.
 *
 * <p>The pods' half is {@link PodParts}, the node's half in cluster mode (the API's clients,
 * statuses, events to the API server, registration, status and Lease) {@link NodeParts}, the
 * servers {@link ServerParts}; this class keeps the order and the methods the parts are given.
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
    NodeParts cluster =
        clients == null
            ? null
            : NodeParts.create(options, deps, clients, metrics, events.broadcaster(), this::parts);
    if (cluster == null) {
      metrics.register(
          new EventCollector(
              events.broadcaster()::recorded, events.broadcaster()::dropped, null, null));
    }
    StatusManager statuses = cluster == null ? new LocalStatusManager() : cluster.statuses();
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
            cluster == null ? Inputs.Cluster.NONE : cluster.cluster());
    this.parts = new PodParts(in);
    this.node = cluster == null ? null : cluster.node(in, parts, this::healthy);
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
      order.add(NativeHeapTrimmer.forThisProcess(deps.time().schedulers()));
      order.add(
          new LoopWatchdog(NettyLoops::shared, deps.time().clock(), deps.time().schedulers()));
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
      // The readers of the API's responses, built meanwhile off the HTTP engine's event loop.
      ApiSerialization.warmUpInBackground();
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

  /** The pods' parts, for the node's parts built before them. */
  private PodParts parts() {
    return parts;
  }

  // For tests.
  List<Pod> podsWithStatus() {
    return parts.podsWithStatus();
  }

  KubeletMetrics metrics() {
    return in.metrics();
  }
}
