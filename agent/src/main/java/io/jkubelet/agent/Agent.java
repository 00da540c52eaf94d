package io.jkubelet.agent;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.admission.PodAdmitter;
import io.jkubelet.agent.admission.Sysctls;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.gc.ContainerGarbageCollector;
import io.jkubelet.agent.gc.ContainerGc;
import io.jkubelet.agent.gc.ContainerGcPolicy;
import io.jkubelet.agent.gc.Housekeeping;
import io.jkubelet.agent.gc.PodStates;
import io.jkubelet.agent.gc.Reclaimed;
import io.jkubelet.agent.kuberuntime.OomEvents;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.logs.LogCollector;
import io.jkubelet.agent.loop.LoopChannels;
import io.jkubelet.agent.loop.SyncLoop;
import io.jkubelet.agent.metrics.InstrumentedPodSync;
import io.jkubelet.agent.metrics.KubeletMetrics;
import io.jkubelet.agent.metrics.PlegMetrics;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.agent.pleg.GenericPleg;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.podconfig.PodSources;
import io.jkubelet.agent.podconfig.PodUpdate;
import io.jkubelet.agent.prober.ProbeManager;
import io.jkubelet.agent.prober.ProberEvent;
import io.jkubelet.agent.prober.ResultsManager;
import io.jkubelet.agent.server.Healthz;
import io.jkubelet.agent.server.PodsWithStatus;
import io.jkubelet.agent.server.ReadOnlyServer;
import io.jkubelet.agent.server.Route;
import io.jkubelet.agent.stats.SummaryProvider;
import io.jkubelet.agent.status.ReasonCache;
import io.jkubelet.agent.streaming.StreamingRoutes;
import io.jkubelet.agent.sync.PodSync;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Executors2;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Memo;
import io.jkubelet.agent.volume.VolumeManager;
import io.jkubelet.agent.workers.PodWorkers;
import io.jkubelet.agent.workers.WorkQueue;
import io.jkubelet.config.KubeletConfiguration;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent, assembled: the one place that builds every subsystem from the options and the
 * host facts read before (no constructor here or below does I/O), and that starts them in
 * dependency order and stops them in reverse. The {@link Kubelet} it builds is the sync loop's
 * handler.
 *
 * <p>Construction starts nothing; {@link #start()} does. Stopping leaves every pod running: the
 * next start adopts them.
 *
 * <p>Over 400 lines: it is the one place that knows the start and stop order of every subsystem
 * (the container manager first and last, the network, the sync loop, the workers, housekeeping, the
 * servers), and that order is easiest to check read in one file. The pod-running half is already in
 * {@code RuntimeWiring} and the metrics in {@code AgentMetrics}; the housekeeping and server wiring
 * are the next parts to move out (issue 32).
 */
public final class Agent implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(Agent.class);

  static final Duration SYNC_TICK = Duration.ofSeconds(1);
  static final Duration HOUSEKEEPING_TICK = Duration.ofSeconds(2);
  static final Duration RELIST_PERIOD = Duration.ofSeconds(1);
  static final Duration PLEG_HEALTH_THRESHOLD = Duration.ofMinutes(3);
  static final Duration WORKER_ERROR_BACKOFF = Duration.ofSeconds(10);
  static final Duration CONTAINER_GC_PERIOD = Duration.ofMinutes(1);
  static final Duration RUNTIME_CHECK_TTL = Duration.ofSeconds(5);

  private final Setup setup;
  private final LoopChannels channels;
  private final PodManager podManager = new PodManager();
  private final PodCache cache = new PodCache();
  private final ReasonCache reasons = new ReasonCache();
  private final List<Lifecycle> sources;
  private final ExecutorService workerExecutor = Executors.newVirtualThreadPerTaskExecutor();
  private final ExecutorService background =
      Executors.newSingleThreadExecutor(
          r -> Thread.ofPlatform().name("housekeeping").daemon(true).unstarted(r));
  private final AtomicBoolean started = new AtomicBoolean();
  private final PodConfig podConfig;
  private final GenericPleg pleg;
  private final ProbeManager probes;
  private final RuntimeManager runtimeManager;
  private final WorkQueue workQueue;
  private final PodWorkers workers;
  private final PodAdmitter admitter;
  private final Kubelet kubelet;
  private final SyncLoop loop;
  private final ReadOnlyServer server;
  private final KubeletApi api;
  private final Reclaimed reclaimed;
  private final KubeletMetrics metrics;
  private final AgentMetrics documents;
  private final LogCollector logCollector;
  private final OomEvents oomEvents;
  private final ContainerGc containerGc;

  /**
   * What the agent's metrics and stats need from outside.
   *
   * @param metrics the registries; the runtime and API clients of the {@link Setup} should record
   *     into the same (see {@code metrics.InstrumentedRuntime}, {@code RestClientMetrics})
   * @param imageFsDir the engine's root directory, for the image file system's stats, asked for
   *     once, by the first stats request; answering null: the root directory's file system
   */
  public record Monitoring(KubeletMetrics metrics, Supplier<Path> imageFsDir) {}

  /** Builds the agent with metrics of its own; starts nothing. */
  public Agent(Setup setup) {
    this(setup, new Monitoring(new KubeletMetrics(setup.options().nodeName()), () -> null));
  }

  /** Builds the agent; starts nothing. */
  public Agent(Setup setup, Monitoring monitoring) {
    this.setup = setup;
    this.metrics = monitoring.metrics();
    this.channels = LoopChannels.create();
    var clock = setup.time().clock();
    var config = setup.options().config();
    var recorder = setup.recorder();
    podConfig = new PodConfig(clock, recorder, this::sendConfig);
    sources =
        PodSources.create(
            config,
            setup.options().nodeName(),
            podConfig,
            setup.time(),
            recorder,
            setup.cluster() == null ? null : setup.cluster().client());
    pleg =
        new GenericPleg(
            setup.runtime(),
            cache,
            clock,
            setup.time().schedulers(),
            RELIST_PERIOD,
            PLEG_HEALTH_THRESHOLD,
            channels.pleg()::offer,
            new PlegMetrics(metrics));
    probes = probeManager();
    logCollector = RuntimeWiring.logCollector(setup, cache);
    documents =
        new AgentMetrics(setup, metrics, monitoring.imageFsDir(), cache, probes, podManager);
    admitter =
        new PodAdmitter(
            setup.host().machine().cpus() * 1000L,
            setup.host().machine().memoryBytes(),
            config.maxPods(),
            setup.statuses(),
            recorder,
            clock,
            Sysctls.allowing(config.allowedUnsafeSysctls()));
    RuntimeWiring.Built rt = RuntimeWiring.build(setup, objects(), probes, workerExecutor);
    runtimeManager = rt.manager();
    workQueue = new WorkQueue(clock);
    // A changed secret or configMap syncs the pods that use it at once: they are due now, and a
    // tick is sent rather than waited for (up to a sync period; bench-secret-update.sh).
    objects()
        .onChange(
            uids -> {
              uids.forEach(uid -> workQueue.enqueue(uid, Duration.ZERO));
              channels.sync().offer(clock.instant());
            });
    oomEvents = new OomEvents(setup.recorder(), clock.instant());
    workers = podWorkers();
    Housekeeping housekeeping = housekeeping(rt.crashBackoff(), rt.pullBackoff(), rt.volumes());
    containerGc = housekeeping.containerGc();
    kubelet = new Kubelet(parts(housekeeping));
    loop = syncLoop();
    server = readOnlyServer(config);
    api =
        new KubeletApi(
            setup,
            new Healthz(healthChecks()),
            this::podsWithStatus,
            apiRoutes(),
            metrics.caches());
    reclaimed = new Reclaimed(workers, setup.runtime());
    registerCaches(config.maxPods());
  }

  /** Dead containers and sandboxes, for whoever must free disk at once (eviction). */
  public ContainerGarbageCollector containerGarbageCollector() {
    return containerGc;
  }

  /** The bounds of the loop's channels and of the state kept per pod, on {@code /metrics}. */
  private void registerCaches(int maxPods) {
    Map<String, IntSupplier> perPod = new LinkedHashMap<>();
    perPod.put("pod_manager", podManager::size);
    perPod.put("pleg_pod_cache", cache::size);
    perPod.put("pod_workers", workers::size);
    perPod.put("work_queue", workQueue::size);
    perPod.put("prober_pods", probes::podCount);
    perPod.put("admission_rejected", admitter::rejectedCount);
    perPod.put("oom_events", oomEvents::size);
    perPod.put("pod_statuses", setup.statuses()::size);
    CacheBounds.register(metrics.caches(), channels, maxPods, perPod, reasons);
  }

  /** The kubelet API's routes beyond its own: metrics and stats, and the streaming ones. */
  private List<Route> apiRoutes() {
    List<Route> routes = new ArrayList<>(documents.routes());
    if (setup.options().config().enableDebuggingHandlers()) {
      routes.add(StreamingRoutes.forNode(setup.runtime(), podManager));
    }
    return routes;
  }

  private ProbeManager probeManager() {
    return new ProbeManager(
        new ResultsManager(this::sendProbeResult),
        setup.runtime()::exec,
        setup.statuses()::getPodStatus,
        setup.recorder(),
        setup.time().clock(),
        setup.time().schedulers(),
        () -> ThreadLocalRandom.current().nextDouble());
  }

  private SyncLoop syncLoop() {
    return new SyncLoop(
        kubelet,
        podManager::byUid,
        kubelet::podsToSync,
        podConfig::seenAllSources,
        channels.select(),
        channels.sync(),
        channels.housekeeping(),
        setup.time().clock(),
        SYNC_TICK,
        HOUSEKEEPING_TICK,
        setup.time().schedulers());
  }

  private PodWorkers podWorkers() {
    var clock = setup.time().clock();
    PodSync sync =
        new PodSync(
            setup.runtime(),
            runtimeManager,
            cache,
            setup.statuses(),
            reasons,
            clock,
            () -> setup.host().nodeIp(),
            admitter::isRejected,
            oomEvents,
            setup.recorder(),
            probes::health,
            probes::failedProbe,
            setup.network()::networkError,
            new PodSync.Cgroups(setup.containerManager(), activePods()));
    return new PodWorkers(
        new InstrumentedPodSync(sync, metrics, setup.statuses()::getPodStatus, clock),
        workQueue,
        clock,
        setup.options().config().syncFrequency(),
        WORKER_ERROR_BACKOFF,
        () -> ThreadLocalRandom.current().nextDouble(),
        workerExecutor);
  }

  private Housekeeping housekeeping(
      Backoff crashBackoff, Backoff pullBackoff, VolumeManager volumes) {
    var gc = setup.options().config().gc();
    return new Housekeeping(
        setup.runtime(),
        new ContainerGc(
            setup.runtime(),
            runtimeManager,
            new ContainerGcPolicy(
                gc.minimumContainerTtl(), gc.maxPerPodContainer(), gc.maxContainers()),
            PodStates.of(podManager, setup.statuses(), workers, podConfig::seenAllSources),
            setup.time().clock(),
            setup.recorder(),
            Refs.node(setup.options().nodeName())),
        podManager,
        workers,
        cache,
        setup.statuses(),
        reasons,
        volumes,
        setup.time().clock(),
        CONTAINER_GC_PERIOD,
        setup.cluster() == null ? null : setup.cluster().mirrors(),
        probes,
        logCollector::removePodLogs,
        setup.recorder(),
        setup.containerManager(),
        activePods(),
        crashBackoff,
        pullBackoff);
  }

  private Kubelet.Parts parts(Housekeeping housekeeping) {
    return new Kubelet.Parts(
        podManager,
        workQueue,
        workers,
        probes,
        admitter,
        setup.cluster() == null ? null : setup.cluster().mirrors(),
        cache,
        runtimeManager,
        housekeeping,
        background,
        objects());
  }

  private ReadOnlyServer readOnlyServer(KubeletConfiguration config) {
    if (config.readOnlyPort() == 0) {
      return null;
    }
    return documents.serve(
        new ReadOnlyServer(
            config.address(),
            config.readOnlyPort(),
            new PodsWithStatus(podManager::pods, setup.statuses()::getPodStatus),
            healthChecks(),
            setup.events().store(),
            probes::stats));
  }

  /** The named checks of every {@code /healthz}. */
  private Map<String, Supplier<Health>> healthChecks() {
    Map<String, Supplier<Health>> checks = new LinkedHashMap<>();
    checks.put("syncloop", loop::healthy);
    checks.put("pleg", pleg::healthy);
    checks.put("prober", probes::healthy);
    // As upstream's runtime state, refreshed every 5 s rather than on every request.
    checks.put("runtime", new Memo<>(RUNTIME_CHECK_TTL, setup.time().clock(), this::runtimeHealth));
    checks.put("events", setup.events().broadcaster()::healthy);
    for (Lifecycle source : sources) {
      checks.put(source.getClass().getSimpleName(), source::healthy);
    }
    if (setup.cluster() != null) {
      checks.put("node", setup.cluster().node()::healthy);
      checks.put("client-certificate", setup.cluster().clientCertificate());
    }
    return checks;
  }

  private void sendConfig(PodUpdate u) {
    try {
      channels.config().put(u);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn("PodConfig: interrupted while sending {} of {} pods", u.op(), u.pods().size());
    }
  }

  private ActivePods activePods() {
    return new ActivePods(podManager, setup.statuses());
  }

  /** The secrets, configMaps and services of the node's pods; none standalone. */
  PodObjects objects() {
    return setup.cluster() == null ? PodObjects.NONE : setup.cluster().objects();
  }

  /** A probe result changed: the loop syncs the pod. Never blocks a probe worker. */
  private void sendProbeResult(ProberEvent e) {
    if (!channels.probe().offer(e)) {
      // The periodic resync still picks the change up; only its promptness is lost.
      log.warn("SyncLoop: the probe channel is full; dropped {}", e);
    }
  }

  @Override
  public void start() {
    if (!started.compareAndSet(false, true)) {
      return;
    }
    var options = setup.options();
    log.info(
        "Starting jkubelet on node {} ({}, static pods from {})",
        options.nodeName(),
        setup.cluster() == null ? "standalone" : "cluster mode",
        options.config().staticPodPath().isEmpty() ? "nowhere" : options.config().staticPodPath());
    // The pods' cgroups before anything else: a failure refuses the start, with nothing to stop.
    try {
      setup.containerManager().start();
    } catch (RuntimeException e) {
      started.set(false);
      throw e;
    }
    setup.events().broadcaster().start();
    // The pod sources first: the API source's first list is the longest wait of a start, and what
    // they deliver waits in the loop's channel until the loop runs.
    sources.forEach(Lifecycle::start);
    try {
      log.info("Container runtime: {} {}", setup.runtime().type(), setup.runtime().version());
    } catch (RuntimeException e) {
      log.error(
          "Container runtime is not answering ({}); pods will start once it does", e.getMessage());
    }
    setup
        .recorder()
        .event(Refs.node(options.nodeName()), EventType.Normal, "Starting", "Starting kubelet.");
    setup.statuses().start();
    setup.network().start(); // its attachments are read before the first sync asks for an IP
    probes.start();
    // The servers' TLS set-up (loading the native TLS library) takes a second or more on a busy
    // node: it runs beside the first relist and the pod sources' first lists, which every pod's
    // first sync waits for. The node registers, and so reports Ready, only once the kubelet API
    // listens: `kubectl logs` on a Ready node is never refused.
    CompletableFuture<Void> servers =
        CompletableFuture.runAsync(
            this::startServers, r -> Thread.ofVirtual().name("servers-start").start(r));
    pleg.start();
    logCollector.start();
    objects().start();
    loop.start();
    try {
      servers.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    if (setup.cluster() != null) {
      setup.cluster().node().start();
    }
  }

  /** The kubelet API, then the read-only server, whose /healthz then also says the API listens. */
  private void startServers() {
    api.start();
    if (server != null) {
      server.start();
    }
  }

  @Override
  public void stop() {
    if (!started.compareAndSet(true, false)) {
      return;
    }
    log.info("Stopping jkubelet; pods keep running");
    sources.forEach(Lifecycle::stop);
    if (setup.cluster() != null) {
      setup.cluster().node().stop();
    }
    loop.stop();
    pleg.stop();
    logCollector.stop();
    Executors2.shutdown(background, 2000);
    Executors2.shutdown(workerExecutor, 5000);
    objects().stop();
    probes.stop(); // after the pod workers: their hooks share its HTTP client
    setup.network().stop();
    if (server != null) {
      server.stop();
    }
    api.stop();
    setup.statuses().stop();
    setup.containerManager().stop();
    setup.events().broadcaster().stop();
  }

  /**
   * The node's readiness: the loop, the PLEG, the runtime, and the pods' network (upstream's {@code
   * runtime network not ready}).
   */
  @Override
  public Health healthy() {
    for (Health h : List.of(loop.healthy(), pleg.healthy(), runtimeHealth())) {
      if (!h.ok()) {
        return h;
      }
    }
    return setup.network().networkError().map(Health::failing).orElse(Health.OK);
  }

  private Health runtimeHealth() {
    try {
      setup.runtime().version();
      return Health.OK;
    } catch (RuntimeException e) {
      return Health.failing("container runtime is down: " + e.getMessage());
    }
  }

  /**
   * The metrics that {@code /metrics}, {@code /metrics/probes} and {@code /metrics/resource} serve.
   */
  public KubeletMetrics metrics() {
    return metrics;
  }

  /** The node's and pods' resource usage, for {@code /stats/summary}. */
  public SummaryProvider summary() {
    return documents.summary();
  }

  /** The port the kubelet API listens on (0 before start). */
  public int apiPort() {
    return api.port();
  }

  /** The port the read-only server listens on (0 when it is off). */
  public int readOnlyPort() {
    return server == null ? 0 : server.port();
  }

  /**
   * Whether a pod being deleted in the API is finished here; the status manager then deletes the
   * API object.
   */
  public Predicate<Pod> reclaimed() {
    return reclaimed;
  }

  /**
   * The pod's API object as the API source last saw it, by the pod's UID: the pod itself, or for a
   * static pod its mirror pod; what the status manager's re-check compares with.
   */
  public Optional<Pod> seenInApi(String uid) {
    return podManager.apiObject(uid);
  }

  /** The desired pods, each with the status jkubelet computed for it: {@code /pods}. */
  List<Pod> podsWithStatus() {
    return new PodsWithStatus(podManager::pods, setup.statuses()::getPodStatus).get();
  }

  // For tests.
  PodManager podManager() {
    return podManager;
  }

  PodWorkers workers() {
    return workers;
  }
}
