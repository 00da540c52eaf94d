package io.jkubelet.agent;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.admission.PodAdmitter;
import io.jkubelet.agent.admission.Sysctls;
import io.jkubelet.agent.dns.PodDns;
import io.jkubelet.agent.env.NodeAllocatable;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.eviction.DedicatedImageFs;
import io.jkubelet.agent.eviction.EvictionManager;
import io.jkubelet.agent.eviction.EvictionOptions;
import io.jkubelet.agent.eviction.SummaryPodUsage;
import io.jkubelet.agent.eviction.SummarySignals;
import io.jkubelet.agent.gc.ContainerGc;
import io.jkubelet.agent.gc.ContainerGcPolicy;
import io.jkubelet.agent.gc.Housekeeping;
import io.jkubelet.agent.kuberuntime.ImagePuller;
import io.jkubelet.agent.kuberuntime.NodeContext;
import io.jkubelet.agent.kuberuntime.OomEvents;
import io.jkubelet.agent.kuberuntime.PullCredentials;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.lifecycle.HookRunner;
import io.jkubelet.agent.logs.LogCollector;
import io.jkubelet.agent.loop.LoopChannels;
import io.jkubelet.agent.loop.SyncLoop;
import io.jkubelet.agent.metrics.AgentDocuments;
import io.jkubelet.agent.metrics.CacheBounds;
import io.jkubelet.agent.metrics.ContainerGcCollector;
import io.jkubelet.agent.metrics.EvictionMetrics;
import io.jkubelet.agent.metrics.InstrumentedPodSync;
import io.jkubelet.agent.metrics.PlegMetrics;
import io.jkubelet.agent.pleg.GenericPleg;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.podconfig.PodSources;
import io.jkubelet.agent.prober.ProbeManager;
import io.jkubelet.agent.prober.ResultsManager;
import io.jkubelet.agent.stats.EngineRoot;
import io.jkubelet.agent.stats.NodeReader;
import io.jkubelet.agent.stats.StatsOptions;
import io.jkubelet.agent.stats.SummaryProvider;
import io.jkubelet.agent.status.ActivePods;
import io.jkubelet.agent.status.ReasonCache;
import io.jkubelet.agent.sync.PodSync;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Executors2;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.volume.Mounter;
import io.jkubelet.agent.volume.TokenSource;
import io.jkubelet.agent.volume.VolumeManager;
import io.jkubelet.agent.workers.PodWorkers;
import io.jkubelet.agent.workers.UpdatePodOptions;
import io.jkubelet.agent.workers.UpdatePodOptions.KillPodOptions;
import io.jkubelet.agent.workers.WorkQueue;
import io.jkubelet.agent.workers.WorkType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The pod half of the composition root: the parts that run pods, each built from the options and
 * the inputs {@link Agent#create} made before (no constructor here or below does I/O). What reaches
 * the API server and the servers are built by {@link Agent}'s {@code Edges}; this class only
 * builds, and {@link Agent} starts and stops.
 */
final class AgentParts {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Agent.class);

  static final Duration SYNC_TICK = Duration.ofSeconds(1);
  static final Duration HOUSEKEEPING_TICK = Duration.ofSeconds(2);
  static final Duration RELIST_PERIOD = Duration.ofSeconds(1);
  static final Duration PLEG_HEALTH_THRESHOLD = Duration.ofMinutes(3);
  static final Duration WORKER_ERROR_BACKOFF = Duration.ofSeconds(10);
  static final Duration CONTAINER_GC_PERIOD = Duration.ofMinutes(1);

  final Agent.Inputs in;
  final LoopChannels channels = LoopChannels.create();
  final PodManager podManager = new PodManager();
  final PodCache cache = new PodCache();
  final ReasonCache reasons = new ReasonCache();
  final ExecutorService workerExecutor = Executors.newVirtualThreadPerTaskExecutor();
  final ExecutorService background =
      Executors.newSingleThreadExecutor(
          r -> Thread.ofPlatform().name("housekeeping").daemon(true).unstarted(r));
  final PodConfig podConfig;
  final List<Lifecycle> sources;
  final GenericPleg pleg;
  final ProbeManager probes;
  final LogCollector logCollector;
  final NodeReader nodeReader;
  final SummaryProvider summary;
  final AgentDocuments documents;
  final PodAdmitter admitter;
  final VolumeManager volumes;
  final Backoff crashBackoff;
  final Backoff pullBackoff;
  final RuntimeManager runtimeManager;
  final WorkQueue workQueue;
  final OomEvents oomEvents;
  final PodWorkers workers;
  final ContainerGc containerGc;
  final Housekeeping housekeeping;
  final Kubelet kubelet;
  final EvictionManager eviction;
  final SyncLoop loop;
  final java.util.function.Predicate<Pod> reclaimed;

  /** Builds every part that runs pods; starts nothing. */
  AgentParts(Agent.Inputs in) {
    this.in = in;
    var time = in.deps().time();
    var clock = time.clock();
    var config = in.options().config();
    var recorder = in.events().recorder();
    var runtime = in.runtime();
    var machine = in.deps().host().machine();
    podConfig =
        new PodConfig(
            clock,
            recorder,
            u -> {
              try {
                channels.config().put(u);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                log.warn(
                    "PodConfig: interrupted while sending {} of {} pods", u.op(), u.pods().size());
              }
            });
    sources =
        PodSources.create(
            config, in.options().nodeName(), podConfig, time, recorder, in.apiClient());
    pleg =
        new GenericPleg(
            runtime,
            cache,
            clock,
            time.schedulers(),
            RELIST_PERIOD,
            PLEG_HEALTH_THRESHOLD,
            channels.pleg()::offer,
            new PlegMetrics(in.metrics()));
    probes =
        new ProbeManager(
            new ResultsManager(e -> channels.probe().offer(e)),
            runtime::exec,
            in.statuses()::getPodStatus,
            recorder,
            clock,
            time.schedulers(),
            () -> ThreadLocalRandom.current().nextDouble());
    logCollector = logCollector();
    // Asking the engine for its root is a call to it: asked once, then kept.
    Supplier<Path> engineRoot =
        new EngineRoot(() -> in.engine().engine().rootDir().get().orElse(null), clock);
    var cgroups = in.options().subsystems().cgroups();
    StatsOptions stats =
        StatsOptions.host(
            in.options().nodeName(),
            machine.memoryBytes(),
            in.options().rootDir(),
            engineRoot,
            in.options().podLogPaths(),
            in.containerManager()::podCgroupPaths,
            cgroups.cgroupsPerQOS() ? cgroups.driver().path(cgroups.kubepods()) : null);
    // One reader of the node's memory, disks and processes: the eviction manager reads through
    // it, and the summary reports its latest reading.
    nodeReader = NodeReader.create(stats, clock);
    summary =
        SummaryProvider.create(
            stats,
            nodeReader,
            () -> cache.snapshot().values().stream().map(PodCache.Entry::status).toList(),
            clock);
    documents = new AgentDocuments(in.metrics(), summary, probes, podManager);
    var allocatable =
        io.jkubelet.agent.cm.NodeAllocatable.of(
                machine, 0, config.reservations(), config.eviction())
            .allocatable();
    admitter =
        new PodAdmitter(
            allocatable.milliCpu(),
            allocatable.memoryBytes(),
            config.maxPods(),
            in.statuses(),
            recorder,
            clock,
            Sysctls.allowing(config.allowedUnsafeSysctls()),
            this::evictionAdmit);
    NodeAllocatable capacity =
        new NodeAllocatable(
            machine.cpus() * 1000L, machine.memoryBytes(), machine.ephemeralStorageBytes());
    volumes =
        VolumeManager.create(
            new VolumeManager.Options(
                in.options().rootDir(),
                in.objects(),
                in.apiClient() == null ? TokenSource.NONE : TokenSource.api(in.apiClient()),
                Mounter.system(),
                recorder,
                clock,
                capacity));
    crashBackoff = new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5));
    pullBackoff = new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5));
    runtimeManager =
        new RuntimeManager(
            new RuntimeManager.Deps(
                runtime,
                new ImagePuller(
                    runtime,
                    recorder,
                    clock,
                    pullBackoff,
                    Duration.ofMinutes(5),
                    PullCredentials.forNode(in.options().rootDir(), in.objects(), clock)),
                volumes,
                new HookRunner(runtime::exec, probes::httpClient, time.sleeper()),
                in.objects(),
                crashBackoff,
                recorder,
                clock),
            new RuntimeManager.Options(
                in.options().podInfraImage(),
                config.podInfraOomScoreAdj(),
                new NodeContext(
                    capacity,
                    in.options().rootDir(),
                    new PodDns(
                        config.clusterDNS(),
                        config.clusterDomain(),
                        config.resolvConf(),
                        () -> in.deps().host().nodeIp(),
                        in.options().nodeName(),
                        recorder),
                    in.containerManager()::cgroupParent),
                () -> in.deps().host().nodeIp()),
            workerExecutor);
    workQueue = new WorkQueue(clock);
    // A changed secret or configMap syncs the pods that use it at once: they are due now, and a
    // tick is sent rather than waited for (up to a sync period; bench-secret-update.sh).
    in.objects()
        .onChange(
            uids -> {
              uids.forEach(uid -> workQueue.enqueue(uid, Duration.ZERO));
              channels.sync().offer(clock.instant());
            });
    oomEvents = new OomEvents(recorder, clock.instant());
    workers = podWorkers();
    housekeeping = housekeeping();
    containerGc = housekeeping.containerGc();
    in.metrics().register(new ContainerGcCollector(containerGc::stats));
    kubelet =
        new Kubelet(
            new Kubelet.Parts(
                new Kubelet.Pods(podManager, cache, in.objects(), in.mirrors()),
                workQueue,
                workers,
                probes,
                admitter,
                housekeeping,
                background));
    eviction = evictionManager(engineRoot);
    loop =
        new SyncLoop(
            kubelet,
            new SyncLoop.Pods(podManager::byUid, kubelet::podsToSync, podConfig::seenAllSources),
            channels.select(),
            new SyncLoop.Ticks(
                channels.sync(), channels.housekeeping(), SYNC_TICK, HOUSEKEEPING_TICK),
            clock,
            time.schedulers());
    reclaimed = Housekeeping.reclaimed(workers, runtime);
    registerCaches(config.maxPods());
  }

  /** The eviction manager's admit handler: pods refused under node pressure. */
  private java.util.Optional<PodAdmitter.Refusal> evictionAdmit(Pod pod) {
    return eviction.admit(pod).map(m -> new PodAdmitter.Refusal(Reasons.EVICTED, m));
  }

  /**
   * The collector of container log files ({@code containerLogMaxSize}, {@code
   * containerLogMaxFiles}), fed by what the PLEG's cache says runs; it looks once a second.
   */
  private LogCollector logCollector() {
    var config = in.options().config();
    return LogCollector.create(
        new LogCollector.Options(
            in.options().podLogPaths(),
            io.jkubelet.agent.logs.RotatingLogWriter.parseMaxSize(
                config.containerLogs().containerLogMaxSize()),
            config.containerLogs().containerLogMaxFiles(),
            in.runtime(),
            // Nothing until the PLEG's first relist has ended: after a restart the streams (one
            // per container, each resuming where its file stopped) would otherwise compete with
            // that relist, which every pod's first status waits for.
            () ->
                !cache.relisted()
                    ? List.of()
                    : cache.snapshot().values().stream()
                        .map(PodCache.Entry::status)
                        .filter(Objects::nonNull)
                        .toList(),
            in.deps().time(),
            Duration.ofSeconds(1)));
  }

  private PodWorkers podWorkers() {
    var clock = in.deps().time().clock();
    PodSync sync =
        new PodSync(
            new PodSync.Deps(
                in.runtime(),
                runtimeManager,
                cache,
                in.statuses(),
                reasons,
                oomEvents,
                in.events().recorder(),
                clock),
            new PodSync.Inputs(
                () -> in.deps().host().nodeIp(),
                admitter::isRejected,
                probes::health,
                probes::failedProbe,
                in.network()::networkError),
            new PodSync.Cgroups(in.containerManager(), activePods()));
    return new PodWorkers(
        new InstrumentedPodSync(sync, in.metrics(), in.statuses()::getPodStatus, clock),
        workQueue,
        clock,
        in.options().config().syncFrequency(),
        WORKER_ERROR_BACKOFF,
        () -> ThreadLocalRandom.current().nextDouble(),
        workerExecutor);
  }

  private Housekeeping housekeeping() {
    var gc = in.options().config().gc();
    return Housekeeping.create(
        new Housekeeping.Deps(
            in.runtime(),
            runtimeManager,
            volumes,
            in.containerManager(),
            new Housekeeping.Pods(
                podManager,
                workers,
                cache,
                in.statuses(),
                activePods(),
                podConfig::seenAllSources,
                in.mirrors()),
            new Housekeeping.Forgetting(
                reasons, probes, logCollector::removePodLogs, List.of(crashBackoff, pullBackoff)),
            in.events().recorder(),
            in.deps().time().clock()),
        new Housekeeping.Options(
            CONTAINER_GC_PERIOD,
            new ContainerGcPolicy(
                gc.minimumContainerTtl(), gc.maxPerPodContainer(), gc.maxContainers()),
            Refs.node(in.options().nodeName())));
  }

  /**
   * The eviction manager: signals from the node's reader that the stats summary reports (so the
   * summary shows what eviction decided on), the pods' usage from the summary, evictions through
   * the status manager and a KILL to the pod's worker.
   */
  private EvictionManager evictionManager(Supplier<Path> engineRoot) {
    var config = in.options().config();
    var cg = config.cgroups();
    boolean enforcePods = cg.cgroupsPerQOS() && cg.enforceNodeAllocatable().contains("pods");
    EvictionMetrics listener = new EvictionMetrics();
    in.metrics().register(listener);
    var parts =
        new EvictionManager.Parts(
            in.options().nodeName(),
            new SummarySignals(nodeReader),
            new SummaryPodUsage(summary),
            new DedicatedImageFs(in.options().rootDir(), engineRoot),
            new EvictionManager.Pods(
                activePods()::get,
                pod ->
                    cache
                        .get(pod.getMetadata().getUid())
                        .map(e -> !e.status().anyRunning())
                        .orElse(true),
                pod -> in.statuses().getPodStatus(pod.getMetadata().getUid()),
                (pod, failed, grace) -> {
                  in.statuses().setPodStatus(pod, failed);
                  workers.update(
                      new UpdatePodOptions(
                          pod, WorkType.KILL, new KillPodOptions(grace, false, "evicted", false)));
                }),
            new EvictionManager.Reclaim(containerGc, in.imageGc()),
            in.events().recorder(),
            listener);
    return EvictionManager.create(
        EvictionOptions.of(
            config.eviction().thresholds(enforcePods),
            config.eviction().evictionPressureTransitionPeriod(),
            config.eviction().evictionMaxPodGracePeriod()),
        parts,
        in.deps().time());
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
    perPod.put("pod_statuses", in.statuses()::size);
    CacheBounds.register(in.metrics().caches(), channels, maxPods, perPod, reasons);
  }

  ActivePods activePods() {
    return new ActivePods(podManager, in.statuses());
  }

  /** The workers' and housekeeping's executors, as a lifecycle: nothing to start, shut at stop. */
  Lifecycle executors() {
    return Lifecycle.of(
        "pod workers",
        () -> {},
        () -> {
          Executors2.shutdown(background, 2000);
          Executors2.shutdown(workerExecutor, 5000);
        });
  }

  /** The desired pods, each with the status jkubelet computed for it. */
  List<Pod> podsWithStatus() {
    return new io.jkubelet.agent.server.PodsWithStatus(
            podManager::pods, in.statuses()::getPodStatus)
        .get();
  }
}
