package io.jkubelet.agent.parts;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.admission.PodAdmitter;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.eviction.EvictionManager;
import io.jkubelet.agent.gc.ContainerGc;
import io.jkubelet.agent.gc.ContainerGcPolicy;
import io.jkubelet.agent.gc.Housekeeping;
import io.jkubelet.agent.hung.GuardedRuntime;
import io.jkubelet.agent.hung.HungCallEvents;
import io.jkubelet.agent.kuberuntime.ImagePulls;
import io.jkubelet.agent.kuberuntime.OomEvents;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.logs.LogCollector;
import io.jkubelet.agent.loop.LoopChannels;
import io.jkubelet.agent.loop.SourcesReady;
import io.jkubelet.agent.metrics.AgentDocuments;
import io.jkubelet.agent.metrics.CacheBounds;
import io.jkubelet.agent.metrics.ContainerGcCollector;
import io.jkubelet.agent.metrics.InstrumentedPodSync;
import io.jkubelet.agent.metrics.PlegMetrics;
import io.jkubelet.agent.nodeshutdown.NodeShutdownManager;
import io.jkubelet.agent.oom.OomSource;
import io.jkubelet.agent.pleg.GenericPleg;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.podconfig.PodSources;
import io.jkubelet.agent.prober.ProbeManager;
import io.jkubelet.agent.prober.ResultsManager;
import io.jkubelet.agent.server.PodsWithStatus;
import io.jkubelet.agent.stats.SummaryProvider;
import io.jkubelet.agent.status.ActivePods;
import io.jkubelet.agent.status.ReasonCache;
import io.jkubelet.agent.sync.PodSync;
import io.jkubelet.agent.terminating.StuckTerminations;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Executors2;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.volume.VolumeManager;
import io.jkubelet.agent.workers.PodWorkers;
import io.jkubelet.agent.workers.WorkQueue;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

/**
 * The parts that run pods, each built from the {@link Inputs} the composition root made before (no
 * constructor here or below does I/O): the pod sources, the PLEG, the probes, the log collector,
 * the volumes, the runtime manager, the pod workers, housekeeping, (through {@link PodWatchers})
 * what watches pods from outside their syncs (node shutdown, the OOM watch, the stuck
 * terminations), and (through {@link PressureParts}) the node's readings, admission and eviction.
 * The fields are the parts, final and set by the constructor. This class only builds; the root
 * starts and stops, and builds the sync loop's handler on these parts.
 *
 * <p>Each part's construction is a block of its options; the watchers ({@link PodWatchers}), the
 * node's readings ({@link PressureParts}) and what a sync asks of the engine through ({@link
 * ContainerParts}) are built in parts of their own.
 */
public final class PodParts {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PodParts.class);

  static final Duration RELIST_PERIOD = Duration.ofSeconds(1);
  static final Duration PLEG_HEALTH_THRESHOLD = Duration.ofMinutes(3);
  static final Duration WORKER_ERROR_BACKOFF = Duration.ofSeconds(10);
  static final Duration CONTAINER_GC_PERIOD = Duration.ofMinutes(1);

  public final Inputs in;

  /**
   * The runtime as every part here calls it: the engine's, each call under a deadline (package
   * {@code hung}); started before them by the root.
   */
  public final GuardedRuntime runtime;

  public final LoopChannels channels = LoopChannels.create();
  public final PodManager podManager = new PodManager();
  public final PodCache cache = new PodCache();
  private final ReasonCache reasons = ReasonCache.create();
  private final ExecutorService workerExecutor = Executors.newVirtualThreadPerTaskExecutor();
  public final ExecutorService background =
      Executors.newSingleThreadExecutor(Thread.ofVirtual().name("housekeeping").factory());
  public final PodConfig podConfig;

  /** Whether the loop has handled every source's first set: housekeeping and GC wait for it. */
  public final SourcesReady sourcesReady;

  public final List<Lifecycle> sources;
  public final GenericPleg pleg;
  public final ProbeManager probes;
  public final LogCollector logCollector;
  public final SummaryProvider summary;
  public final AgentDocuments documents;
  public final PodAdmitter admitter;
  private final VolumeManager volumes;
  private final List<Backoff> backoffs;
  public final ImagePulls imagePulls;
  private final RuntimeManager runtimeManager;
  public final WorkQueue workQueue;
  private final OomEvents oomEvents;
  public final OomSource oomSource;
  public final PodWorkers workers;
  public final ContainerGc containerGc;
  public final Housekeeping housekeeping;
  public final EvictionManager eviction;
  public final NodeShutdownManager shutdown;
  public final Predicate<Pod> reclaimed;
  public final StuckTerminations terminations;
  private final PodWatchers watchers;

  /** Builds every part that runs pods; starts nothing. */
  public PodParts(Inputs in) {
    this.in = in;
    var time = in.deps().time();
    var clock = time.clock();
    var config = in.options().config();
    var recorder = in.events().recorder();
    runtime =
        GuardedRuntime.create(
            in.runtime(),
            GuardedRuntime.Options.of(config.runtime().runtimeRequestTimeout()),
            clock,
            time.schedulers(),
            new HungCallEvents(recorder, clock, this::reinspect));
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
    sourcesReady = new SourcesReady(podConfig::seenAllSources, channels.config()::size);
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
            new ProbeManager.Deps(
                new ResultsManager(e -> channels.probe().offer(e)),
                runtime::exec,
                in.statuses()::getPodStatus,
                recorder,
                clock,
                time.schedulers(),
                () -> ThreadLocalRandom.current().nextDouble()));
    logCollector = logCollector();
    ContainerParts containerParts = new ContainerParts(in, runtime, probes, workerExecutor);
    volumes = containerParts.volumes;
    backoffs = containerParts.backoffs();
    imagePulls = containerParts.imagePulls;
    runtimeManager = containerParts.runtimeManager;
    workQueue = new WorkQueue(clock);
    // A changed secret or configMap syncs the pods that use it at once: they are due now, and a
    // tick is sent rather than waited for (up to a sync period; bench-secret-update.sh).
    in.objects().onChange(this::syncSoon);
    // What the OOM killer killed (a kill the kernel log reports syncs its pod at once, as a changed
    // secret does), node shutdown and the stuck terminations.
    watchers =
        new PodWatchers(
            in,
            new PodWatchers.Parts(
                runtime,
                podManager,
                cache,
                runtimeManager,
                volumes,
                imagePulls,
                uid -> syncSoon(List.of(uid)),
                this::workers));
    shutdown = watchers.shutdown;
    oomSource = watchers.oomSource;
    oomEvents = watchers.oomEvents;
    terminations = watchers.terminations;
    PressureParts pressure = new PressureParts(in, cache, shutdown::admit);
    summary = pressure.summary;
    admitter = pressure.admitter;
    documents = new AgentDocuments(in.metrics(), summary, probes, podManager);
    workers = podWorkers();
    housekeeping = housekeeping();
    containerGc = housekeeping.containerGc();
    in.metrics().register(new ContainerGcCollector(containerGc::stats));
    eviction = pressure.evictionManager(watchers.evictionPods(), containerGc);
    reclaimed = Housekeeping.reclaimed(workers, runtime, volumes);
    registerCaches(config.pods().maxPods());
  }

  /**
   * Syncs the pods now: they are due at once, and a tick is sent rather than waited for (up to a
   * sync period; bench-secret-update.sh).
   */
  private void syncSoon(Collection<String> uids) {
    uids.forEach(uid -> workQueue.enqueue(uid, Duration.ZERO));
    channels.sync().offer(in.deps().time().clock().instant());
  }

  /** The pod workers, once built: what node shutdown stops pods through. */
  private PodWorkers workers() {
    return workers;
  }

  /** A hung call has returned: the PLEG inspects its pod again. */
  private void reinspect(io.jkubelet.agent.runtime.PodRef pod) {
    this.pleg.reinspect(pod);
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
                config.pods().containerLogs().containerLogMaxSize()),
            config.pods().containerLogs().containerLogMaxFiles(),
            runtime,
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
                runtime,
                runtimeManager,
                cache,
                in.statuses(),
                reasons,
                oomEvents,
                new RuntimeManager.Reports(in.events().recorder(), in.timelines()),
                clock),
            new PodSync.Inputs(
                () -> in.deps().host().nodeIp(),
                admitter::isRejected,
                probes::health,
                probes::failedProbe,
                in.network()::networkError),
            new PodSync.Cgroups(in.containerManager(), activePods()));
    return new PodWorkers(
        new PodWorkers.Options(
            new InstrumentedPodSync(sync, in.metrics(), in.statuses()::getPodStatus, clock),
            workQueue,
            clock,
            in.options().config().pods().lifecycle().syncFrequency(),
            WORKER_ERROR_BACKOFF,
            () -> ThreadLocalRandom.current().nextDouble(),
            workerExecutor));
  }

  private Housekeeping housekeeping() {
    var gc = in.options().config().resources().gc();
    return Housekeeping.create(
        new Housekeeping.Deps(
            runtime,
            runtimeManager,
            volumes,
            in.containerManager(),
            new Housekeeping.Pods(
                podManager,
                workers,
                cache,
                in.statuses(),
                activePods(),
                sourcesReady,
                in.mirrors()),
            new Housekeeping.Forgetting(reasons, probes, logCollector::removePodLogs, backoffs),
            in.events().recorder(),
            in.deps().time().clock()),
        new Housekeeping.Options(
            CONTAINER_GC_PERIOD,
            new ContainerGcPolicy(
                gc.minimumContainerTtl(), gc.maxPerPodContainer(), gc.maxContainers()),
            Refs.node(in.options().nodeName())));
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

  private ActivePods activePods() {
    return new ActivePods(podManager, in.statuses());
  }

  /** The workers' and housekeeping's executors, as a lifecycle: nothing to start, shut at stop. */
  public Lifecycle executors() {
    return Lifecycle.of(
        "pod workers",
        () -> {},
        () -> {
          Executors2.shutdown(background, 2000);
          Executors2.shutdown(workerExecutor, 5000);
        });
  }

  /**
   * jkubelet's own annotations of a pod on {@code /pods}: the pulls it waits on, and what holds it
   * while it is stuck deleting ({@link PodWatchers#annotations}).
   */
  public Map<String, String> annotations(String podUid) {
    return watchers.annotations(podUid);
  }

  /** The desired pods, each with the status jkubelet computed for it. */
  public List<Pod> podsWithStatus() {
    return new PodsWithStatus(podManager::pods, in.statuses()::getPodStatus, this::annotations)
        .get();
  }
}
