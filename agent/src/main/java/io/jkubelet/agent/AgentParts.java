package io.jkubelet.agent;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.admission.PodAdmitter;
import io.jkubelet.agent.admission.Sysctls;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.eviction.EvictionManager;
import io.jkubelet.agent.gc.ContainerGc;
import io.jkubelet.agent.gc.ContainerGcPolicy;
import io.jkubelet.agent.gc.Housekeeping;
import io.jkubelet.agent.kuberuntime.OomEvents;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.logs.LogCollector;
import io.jkubelet.agent.loop.LoopChannels;
import io.jkubelet.agent.loop.SyncLoop;
import io.jkubelet.agent.metrics.ContainerGcCollector;
import io.jkubelet.agent.metrics.EvictionMetrics;
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
import io.jkubelet.agent.status.ReasonCache;
import io.jkubelet.agent.streaming.StreamingRoutes;
import io.jkubelet.agent.sync.PodSync;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Lifecycle.Health;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts of the {@link Agent}, built: every subsystem made from the options and the host facts
 * read before (no constructor here or below does I/O), and wired to each other. The agent starts
 * and stops them; building them starts nothing.
 */
final class AgentParts {
  private static final Logger log = LoggerFactory.getLogger(Agent.class);

  static final Duration SYNC_TICK = Duration.ofSeconds(1);
  static final Duration HOUSEKEEPING_TICK = Duration.ofSeconds(2);
  static final Duration RELIST_PERIOD = Duration.ofSeconds(1);
  static final Duration PLEG_HEALTH_THRESHOLD = Duration.ofMinutes(3);
  static final Duration WORKER_ERROR_BACKOFF = Duration.ofSeconds(10);
  static final Duration CONTAINER_GC_PERIOD = Duration.ofMinutes(1);
  static final Duration RUNTIME_CHECK_TTL = Duration.ofSeconds(5);

  final Setup setup;
  final LoopChannels channels;
  final PodManager podManager = new PodManager();
  final PodCache cache = new PodCache();
  final ReasonCache reasons = new ReasonCache();
  final List<Lifecycle> sources;
  final ExecutorService workerExecutor = Executors.newVirtualThreadPerTaskExecutor();
  final ExecutorService background =
      Executors.newSingleThreadExecutor(
          r -> Thread.ofPlatform().name("housekeeping").daemon(true).unstarted(r));
  final PodConfig podConfig;
  final GenericPleg pleg;
  final ProbeManager probes;
  final RuntimeManager runtimeManager;
  final WorkQueue workQueue;
  final PodWorkers workers;
  final ContainerGc containerGc;
  final PodAdmitter admitter;
  final Kubelet kubelet;
  final SyncLoop loop;
  final ReadOnlyServer server;
  final KubeletApi api;
  final java.util.function.Predicate<Pod> reclaimed;
  final KubeletMetrics metrics;
  final AgentMetrics documents;
  final LogCollector logCollector;
  final OomEvents oomEvents;
  final EvictionManager eviction;

  /** Builds every part; starts nothing. */
  AgentParts(Setup setup, Agent.Monitoring monitoring) {
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
    // Asking the engine for its root is a call to it: asked once, then kept.
    Supplier<Path> engineRoot =
        new io.jkubelet.agent.stats.EngineRoot(monitoring.imageFsDir(), setup.time().clock());
    documents = new AgentMetrics(setup, metrics, engineRoot, cache, probes, podManager);
    Map<String, Long> reserved = EvictionWiring.reservation(config, setup.host().machine());
    admitter =
        new PodAdmitter(
            Math.max(0, setup.host().machine().cpus() * 1000L - reserved.getOrDefault("cpu", 0L)),
            EvictionWiring.allocatableMemory(setup.host().machine(), reserved),
            config.maxPods(),
            setup.statuses(),
            recorder,
            clock,
            Sysctls.allowing(config.allowedUnsafeSysctls()),
            this::evictionAdmit);
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
    metrics.register(new ContainerGcCollector(containerGc::stats));
    kubelet = new Kubelet(parts(housekeeping));
    EvictionMetrics evictionMetrics = new EvictionMetrics();
    metrics.register(evictionMetrics);
    eviction =
        EvictionWiring.build(
            setup,
            new EvictionWiring.AgentParts(
                activePods()::get,
                cache,
                setup.statuses(),
                workers,
                documents.summary(),
                documents.node(),
                engineRoot,
                containerGc,
                monitoring.imageGc(),
                evictionMetrics));
    loop = syncLoop();
    server = readOnlyServer(config);
    api =
        new KubeletApi(
            setup,
            new Healthz(healthChecks()),
            this::podsWithStatus,
            apiRoutes(),
            metrics.caches());
    reclaimed = Housekeeping.reclaimed(workers, setup.runtime());
    registerCaches(config.maxPods());
  }

  /** The eviction manager's admit handler: pods refused under node pressure. */
  private java.util.Optional<PodAdmitter.Refusal> evictionAdmit(Pod pod) {
    return eviction.admit(pod).map(m -> new PodAdmitter.Refusal(EvictionWiring.EVICTED, m));
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
    if (setup.options().config().server().enableDebuggingHandlers()) {
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
        new SyncLoop.Pods(podManager::byUid, kubelet::podsToSync, podConfig::seenAllSources),
        channels.select(),
        new SyncLoop.Ticks(channels.sync(), channels.housekeeping(), SYNC_TICK, HOUSEKEEPING_TICK),
        setup.time().clock(),
        setup.time().schedulers());
  }

  private PodWorkers podWorkers() {
    var clock = setup.time().clock();
    PodSync sync =
        new PodSync(
            new PodSync.Deps(
                setup.runtime(),
                runtimeManager,
                cache,
                setup.statuses(),
                reasons,
                oomEvents,
                setup.recorder(),
                clock),
            new PodSync.Inputs(
                () -> setup.host().nodeIp(),
                admitter::isRejected,
                probes::health,
                probes::failedProbe,
                setup.network()::networkError),
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
    return Housekeeping.create(
        new Housekeeping.Deps(
            setup.runtime(),
            runtimeManager,
            volumes,
            setup.containerManager(),
            new Housekeeping.Pods(
                podManager,
                workers,
                cache,
                setup.statuses(),
                activePods(),
                podConfig::seenAllSources,
                setup.cluster() == null ? null : setup.cluster().mirrors()),
            new Housekeeping.Forgetting(
                reasons, probes, logCollector::removePodLogs, List.of(crashBackoff, pullBackoff)),
            setup.recorder(),
            setup.time().clock()),
        new Housekeeping.Options(
            CONTAINER_GC_PERIOD,
            new ContainerGcPolicy(
                gc.minimumContainerTtl(), gc.maxPerPodContainer(), gc.maxContainers()),
            Refs.node(setup.options().nodeName())));
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
    if (config.server().readOnlyPort() == 0) {
      return null;
    }
    return documents.serve(
        new ReadOnlyServer(
            config.server().address(),
            config.server().readOnlyPort(),
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
    checks.put("eviction", () -> eviction.healthy());
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

  Health runtimeHealth() {
    try {
      setup.runtime().version();
      return Health.OK;
    } catch (RuntimeException e) {
      return Health.failing("container runtime is down: " + e.getMessage());
    }
  }

  /** The desired pods, each with the status jkubelet computed for it: {@code /pods}. */
  List<Pod> podsWithStatus() {
    return new PodsWithStatus(podManager::pods, setup.statuses()::getPodStatus).get();
  }
}
