package io.jkubelet.agent;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.kuberuntime.ImagePuller;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.kuberuntime.Volumes;
import io.jkubelet.agent.lifecycle.HookRunner;
import io.jkubelet.agent.loop.LoopInput;
import io.jkubelet.agent.loop.Select;
import io.jkubelet.agent.loop.SyncHandler;
import io.jkubelet.agent.loop.SyncLoop;
import io.jkubelet.agent.node.NodeInfo;
import io.jkubelet.agent.pleg.GenericPleg;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.pleg.PodLifecycleEvent;
import io.jkubelet.agent.pod.MirrorClient;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.podconfig.Annotations;
import io.jkubelet.agent.podconfig.ApiSource;
import io.jkubelet.agent.podconfig.FileSource;
import io.jkubelet.agent.podconfig.HttpSource;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.podconfig.PodUpdate;
import io.jkubelet.agent.podconfig.Source;
import io.jkubelet.agent.prober.ProbeManager;
import io.jkubelet.agent.prober.ProberEvent;
import io.jkubelet.agent.prober.ResultsManager;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.server.ReadOnlyServer;
import io.jkubelet.agent.status.ReasonCache;
import io.jkubelet.agent.status.StatusGenerator;
import io.jkubelet.agent.status.StatusManager;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Executors2;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Schedulers;
import io.jkubelet.agent.util.Sleeper;
import io.jkubelet.agent.workers.PodWorkers;
import io.jkubelet.agent.workers.UpdatePodOptions;
import io.jkubelet.agent.workers.UpdatePodOptions.KillPodOptions;
import io.jkubelet.agent.workers.WorkQueue;
import io.jkubelet.agent.workers.WorkType;
import io.jkubelet.config.KubeletConfiguration;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires the subsystems into one node agent and implements the {@link SyncHandler}: what the sync
 * loop dispatches becomes work for the pod workers. Kept thin on purpose: a pod's sync is {@link
 * PodSync}, housekeeping is {@link Housekeeping}.
 *
 * <p>Construction starts nothing; {@link #start()} starts the subsystems in dependency order and
 * {@link #stop()} stops them in reverse. Stopping leaves every pod running: the next start adopts
 * them.
 */
public final class Kubelet implements SyncHandler, Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(Kubelet.class);

  static final Duration SYNC_TICK = Duration.ofSeconds(1);
  static final Duration HOUSEKEEPING_TICK = Duration.ofSeconds(2);
  static final Duration RELIST_PERIOD = Duration.ofSeconds(1);
  static final Duration PLEG_HEALTH_THRESHOLD = Duration.ofMinutes(3);
  static final Duration WORKER_ERROR_BACKOFF = Duration.ofSeconds(10);
  static final Duration CONTAINER_GC_PERIOD = Duration.ofMinutes(1);
  static final int PLEG_CHANNEL_CAPACITY = 1000;
  static final int CONFIG_CHANNEL_CAPACITY = 50;
  static final int PROBE_CHANNEL_CAPACITY = 1000;

  private final KubeletOptions options;
  private final Clock clock;
  private final Runtime runtime;
  private final EventRecorder recorder;
  private final String hostIp;

  private final PodManager podManager = new PodManager();
  private final PodCache cache = new PodCache();
  private final ReasonCache reasons = new ReasonCache();
  private final StatusManager statuses;
  private final Select select = new Select();
  private final Select.Channel<PodUpdate> configCh;
  private final Select.Channel<PodLifecycleEvent> plegCh;
  private final Select.Channel<ProberEvent> probeCh;
  private final Select.Channel<Instant> syncCh;
  private final Select.Channel<Instant> housekeepingCh;
  private final PodConfig podConfig;

  /** The pod sources: the manifest directory, the manifest URL, the API server. */
  private final List<Lifecycle> sources = new ArrayList<>();

  private final Cluster cluster;
  private final GenericPleg pleg;
  private final WorkQueue workQueue;
  private final PodWorkers workers;
  private final RuntimeManager runtimeManager;
  private final ProbeManager probes;
  private final Housekeeping housekeeping;
  private final SyncLoop loop;
  private final ReadOnlyServer server;
  private final ExecutorService workerExecutor = Executors.newVirtualThreadPerTaskExecutor();
  private final ExecutorService background;
  private final AtomicBoolean housekeepingRunning = new AtomicBoolean();

  /** Pods refused at admission; guarded by being a concurrent set. */
  private final Set<String> rejected = ConcurrentHashMap.newKeySet();

  private final AtomicBoolean started = new AtomicBoolean();
  private final Admission.Allocatable allocatable;

  /**
   * What cluster mode adds to standalone mode: a client for the pods bound to this node, the node's
   * registration and heartbeats, and the mirror pods of static pods.
   *
   * @param client the client of the API source and mirror pods
   * @param node registration, node status and Lease, on their own client
   * @param mirrors creates and deletes mirror pods
   */
  public record Cluster(KubernetesClient client, Lifecycle node, MirrorClient mirrors) {}

  /**
   * The event pipeline behind the recorder: its broadcaster (started first, stopped last, so no
   * event of the agent's own start or stop is lost) and the local store that {@code /events}
   * serves.
   */
  public record EventPipeline(Lifecycle broadcaster, ReadOnlyServer.Events store) {
    /** No pipeline: for tests that give a recorder of their own. */
    public static final EventPipeline NONE =
        new EventPipeline(
            new Lifecycle() {
              public void start() {}

              public void stop() {}

              public Health healthy() {
                return Health.OK;
              }
            },
            (ns, pod, uid) -> List.of());
  }

  private final EventPipeline events;

  /** A standalone agent: static pods only, no API server. */
  public Kubelet(
      KubeletOptions options,
      Runtime runtime,
      EventRecorder recorder,
      StatusManager statuses,
      Clock clock) {
    this(options, runtime, recorder, statuses, clock, null, EventPipeline.NONE);
  }

  /** An agent; {@code cluster} is null in standalone mode. */
  public Kubelet(
      KubeletOptions options,
      Runtime runtime,
      EventRecorder recorder,
      StatusManager statuses,
      Clock clock,
      Cluster cluster,
      EventPipeline events) {
    this.options = options;
    this.events = events;
    this.cluster = cluster;
    this.clock = clock;
    this.runtime = runtime;
    this.recorder = recorder;
    this.statuses = statuses;
    this.hostIp = options.nodeIp().isEmpty() ? NodeIp.detect() : options.nodeIp();
    NodeInfo machine = NodeInfo.read(options.rootDir());
    this.allocatable =
        new Admission.Allocatable(
            machine.cpus() * 1000L, machine.memoryBytes(), options.config().maxPods());
    KubeletConfiguration config = options.config();

    configCh = select.channel("config", CONFIG_CHANNEL_CAPACITY, LoopInput.Config::new);
    plegCh = select.channel("pleg", PLEG_CHANNEL_CAPACITY, LoopInput.Pleg::new);
    probeCh = select.channel("probe", PROBE_CHANNEL_CAPACITY, LoopInput.Probe::new);
    syncCh = select.channel("sync", 1, LoopInput.SyncTick::new);
    housekeepingCh = select.channel("housekeeping", 1, LoopInput.HousekeepingTick::new);

    podConfig = new PodConfig(clock, recorder, this::sendConfig);
    if (!config.staticPodPath().isEmpty()) {
      sources.add(
          new FileSource(
              Path.of(config.staticPodPath()),
              config.fileCheckFrequency(),
              options.nodeName(),
              clock,
              Schedulers.system(),
              recorder,
              podConfig.channel(Source.FILE)));
    }
    if (!config.staticPodURL().isEmpty()) {
      sources.add(
          new HttpSource(
              URI.create(config.staticPodURL()),
              config.staticPodURLHeader(),
              config.httpCheckFrequency(),
              options.nodeName(),
              clock,
              Schedulers.system(),
              podConfig.channel(Source.HTTP)));
    }
    if (cluster != null) {
      sources.add(
          new ApiSource(cluster.client(), options.nodeName(), podConfig.channel(Source.API)));
    }

    pleg =
        new GenericPleg(
            runtime,
            cache,
            clock,
            Schedulers.system(),
            RELIST_PERIOD,
            PLEG_HEALTH_THRESHOLD,
            plegCh::offer);
    Backoff crashBackoff = new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5));
    Backoff pullBackoff = new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5));
    Volumes volumes = new Volumes(options.rootDir());
    probes =
        new ProbeManager(
            new ResultsManager(this::sendProbeResult),
            runtime::exec,
            statuses::getPodStatus,
            recorder,
            clock,
            () -> ThreadLocalRandom.current().nextDouble());
    runtimeManager =
        new RuntimeManager(
            runtime,
            new ImagePuller(runtime, recorder, clock, pullBackoff, Duration.ofMinutes(5)),
            volumes,
            recorder,
            clock,
            crashBackoff,
            options.podInfraImage(),
            config.podInfraOomScoreAdj(),
            () -> hostIp,
            workerExecutor,
            new HookRunner(runtime::exec, probes::httpClient, Sleeper.SYSTEM));
    workQueue = new WorkQueue(clock);
    PodSync sync =
        new PodSync(
            runtime,
            runtimeManager,
            cache,
            statuses,
            reasons,
            clock,
            () -> hostIp,
            p -> rejected.contains(p.getMetadata().getUid()),
            new OomEvents(recorder, clock.instant()),
            recorder,
            probes::health,
            probes::failedProbe);
    workers =
        new PodWorkers(
            sync,
            workQueue,
            clock,
            config.syncFrequency(),
            WORKER_ERROR_BACKOFF,
            () -> ThreadLocalRandom.current().nextDouble(),
            workerExecutor);
    housekeeping =
        new Housekeeping(
            runtime,
            runtimeManager,
            podManager,
            workers,
            cache,
            statuses,
            reasons,
            volumes,
            clock,
            CONTAINER_GC_PERIOD,
            cluster == null ? null : cluster.mirrors(),
            probes,
            crashBackoff,
            pullBackoff);
    background =
        Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().name("housekeeping").daemon(true).unstarted(r));
    loop =
        new SyncLoop(
            this,
            podManager::byUid,
            this::podsToSync,
            podConfig::seenAllSources,
            select,
            syncCh,
            housekeepingCh,
            clock,
            SYNC_TICK,
            HOUSEKEEPING_TICK,
            Schedulers.system());
    Map<String, Supplier<Health>> checks = new LinkedHashMap<>();
    checks.put("syncloop", loop::healthy);
    checks.put("pleg", pleg::healthy);
    checks.put("prober", probes::healthy);
    checks.put("runtime", this::runtimeHealth);
    checks.put("events", events.broadcaster()::healthy);
    for (Lifecycle source : sources) {
      checks.put(source.getClass().getSimpleName(), source::healthy);
    }
    if (cluster != null) {
      checks.put("node", cluster.node()::healthy);
    }
    server =
        config.readOnlyPort() == 0
            ? null
            : new ReadOnlyServer(
                config.address(),
                config.readOnlyPort(),
                this::podsWithStatus,
                checks,
                events.store(),
                probes::stats);
  }

  private void sendConfig(PodUpdate u) {
    try {
      configCh.put(u);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn("PodConfig: interrupted while sending {} of {} pods", u.op(), u.pods().size());
    }
  }

  /** A probe result changed: the loop syncs the pod. Never blocks a probe worker. */
  private void sendProbeResult(ProberEvent e) {
    if (!probeCh.offer(e)) {
      // The periodic resync still picks the change up; only its promptness is lost.
      log.warn("SyncLoop: the probe channel is full; dropped {}", e);
    }
  }

  // --- lifecycle ---

  @Override
  public void start() {
    if (!started.compareAndSet(false, true)) {
      return;
    }
    log.info(
        "Starting jkubelet on node {} ({}, static pods from {})",
        options.nodeName(),
        cluster == null ? "standalone" : "cluster mode",
        options.config().staticPodPath().isEmpty() ? "nowhere" : options.config().staticPodPath());
    events.broadcaster().start();
    try {
      log.info("Container runtime: {} {}", runtime.type(), runtime.version());
    } catch (RuntimeException e) {
      log.error(
          "Container runtime is not answering ({}); pods will start once it does", e.getMessage());
    }
    recorder.event(
        Refs.node(options.nodeName()), EventType.Normal, "Starting", "Starting kubelet.");
    statuses.start();
    probes.start();
    if (server != null) {
      server.start();
    }
    pleg.start();
    if (cluster != null) {
      cluster.node().start();
    }
    sources.forEach(Lifecycle::start);
    loop.start();
  }

  @Override
  public void stop() {
    if (!started.compareAndSet(true, false)) {
      return;
    }
    log.info("Stopping jkubelet; pods keep running");
    sources.forEach(Lifecycle::stop);
    if (cluster != null) {
      cluster.node().stop();
    }
    loop.stop();
    pleg.stop();
    Executors2.shutdown(background, 2000);
    Executors2.shutdown(workerExecutor, 5000);
    probes.stop(); // after the pod workers: their hooks share its HTTP client
    if (server != null) {
      server.stop();
    }
    statuses.stop();
    events.broadcaster().stop();
  }

  @Override
  public Health healthy() {
    for (Health h : List.of(loop.healthy(), pleg.healthy(), runtimeHealth())) {
      if (!h.ok()) {
        return h;
      }
    }
    return Health.OK;
  }

  private Health runtimeHealth() {
    try {
      runtime.version();
      return Health.OK;
    } catch (RuntimeException e) {
      return Health.failing("container runtime is down: " + e.getMessage());
    }
  }

  /** The port the read-only server listens on (0 when it is off). */
  public int readOnlyPort() {
    return server == null ? 0 : server.port();
  }

  // --- SyncHandler ---

  @Override
  public void handlePodAdditions(List<Pod> pods) {
    for (Pod pod : pods) {
      podManager.addOrUpdate(pod);
      if (Annotations.isMirror(pod)) {
        continue; // never run; housekeeping matches it with its static pod
      }
      String reason = admit(pod);
      if (reason != null) {
        continue;
      }
      workers.update(UpdatePodOptions.of(pod, WorkType.CREATE));
      probes.addPod(pod);
    }
  }

  @Override
  public void handlePodUpdates(List<Pod> pods) {
    for (Pod pod : pods) {
      podManager.addOrUpdate(pod);
      if (Annotations.isMirror(pod)) {
        if (pod.getMetadata().getDeletionTimestamp() != null && cluster != null) {
          // Deleted by hand: finish the deletion; housekeeping creates it again.
          background.execute(() -> cluster.mirrors().delete(pod));
        }
        continue;
      }
      if (rejected.contains(pod.getMetadata().getUid())) {
        continue;
      }
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        Long grace = pod.getMetadata().getDeletionGracePeriodSeconds();
        workers.update(
            new UpdatePodOptions(
                pod,
                WorkType.KILL,
                new KillPodOptions(
                    grace == null ? null : Duration.ofSeconds(grace),
                    true,
                    "pod is being deleted")));
      } else {
        workers.update(UpdatePodOptions.of(pod, WorkType.UPDATE));
        probes.addPod(pod); // a static pod edited in place may have changed its probes
      }
    }
  }

  @Override
  public void handlePodRemoves(List<Pod> pods) {
    for (Pod pod : pods) {
      podManager.delete(pod);
      if (Annotations.isMirror(pod)) {
        continue;
      }
      rejected.remove(pod.getMetadata().getUid());
      probes.removePod(pod.getMetadata().getUid());
      workers.update(
          new UpdatePodOptions(pod, WorkType.KILL, new KillPodOptions(null, true, "pod removed")));
    }
  }

  @Override
  public void handlePodReconcile(List<Pod> pods) {
    pods.forEach(podManager::addOrUpdate);
  }

  @Override
  public void handlePodSyncs(List<Pod> pods) {
    for (Pod pod : pods) {
      if (!rejected.contains(pod.getMetadata().getUid()) && !Annotations.isMirror(pod)) {
        workers.update(UpdatePodOptions.of(pod, WorkType.SYNC));
      }
    }
  }

  @Override
  public void cleanUpContainersInPod(String podUid, String containerId) {
    if (podManager.byUid(podUid).isEmpty()) {
      return; // housekeeping removes all of it
    }
    background.execute(
        () -> cache.get(podUid).ifPresent(e -> runtimeManager.removeDeadContainers(e.status())));
  }

  @Override
  public void handlePodCleanups() {
    if (!housekeepingRunning.compareAndSet(false, true)) {
      log.debug("Housekeeping: the previous run is still going; skipping");
      return;
    }
    try {
      background.execute(
          () -> {
            try {
              housekeeping.run();
            } catch (RuntimeException e) {
              log.warn("Housekeeping failed: {}", e.toString());
            } finally {
              housekeepingRunning.set(false);
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      housekeepingRunning.set(false);
    }
  }

  // --- helpers ---

  private List<Pod> podsToSync() {
    List<Pod> due = new ArrayList<>();
    for (String uid : workQueue.getWork()) {
      podManager.byUid(uid).ifPresent(due::add);
    }
    return due;
  }

  /**
   * Admits a pod, or rejects it (phase Failed, with an upstream-style reason and message) when the
   * node has no room for it: {@code maxPods}, or the cpu and memory its containers request against
   * what is allocatable. Returns the rejection reason, or null.
   */
  private String admit(Pod pod) {
    List<Pod> admitted =
        podManager.pods().stream()
            .filter(p -> !p.getMetadata().getUid().equals(pod.getMetadata().getUid()))
            .filter(p -> !rejected.contains(p.getMetadata().getUid()))
            .filter(p -> !isTerminal(p))
            .toList();
    var rejection = Admission.admit(pod, admitted, allocatable);
    if (rejection.isEmpty()) {
      return null;
    }
    String reason = rejection.get().reason();
    String message = rejection.get().message();
    rejected.add(pod.getMetadata().getUid());
    recorder.event(Refs.pod(pod), EventType.Warning, reason, message);
    log.warn(
        "Admission: rejected pod {}/{}: {}",
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        message);
    statuses.setPodStatus(
        pod,
        new PodStatusBuilder()
            .withPhase("Failed")
            .withReason(reason)
            .withMessage("Pod " + message)
            .withStartTime(StatusGenerator.time(clock.instant()))
            .build());
    return reason;
  }

  /**
   * Whether a pod being deleted in the API is finished here: its worker is not running it, and the
   * runtime has nothing left of it. The status manager then deletes the API object for good.
   */
  public boolean canBeDeleted(Pod apiPod) {
    if (apiPod.getMetadata().getDeletionTimestamp() == null) {
      return false;
    }
    String uid = apiPod.getMetadata().getUid();
    var state = workers.state(uid);
    if (state == PodWorkers.PodState.SYNCING || workers.isWorking(uid)) {
      return false;
    }
    try {
      var status = runtime.podStatus(RuntimeManager.ref(apiPod));
      return status.containers().isEmpty() && status.sandboxes().isEmpty();
    } catch (RuntimeException e) {
      return false; // cannot tell: try again at the next sync
    }
  }

  private boolean isTerminal(Pod p) {
    return statuses
        .getPodStatus(p.getMetadata().getUid())
        .map(s -> StatusGenerator.isTerminal(s.getPhase()))
        .orElse(false);
  }

  /** The desired pods, each with the status jkubelet computed for it. */
  List<Pod> podsWithStatus() {
    List<Pod> out = new ArrayList<>();
    for (Pod p : podManager.pods()) {
      Pod copy = new PodBuilder(p).build();
      Optional<io.fabric8.kubernetes.api.model.PodStatus> s =
          statuses.getPodStatus(p.getMetadata().getUid());
      copy.setStatus(s.orElseGet(() -> new PodStatusBuilder().withPhase("Pending").build()));
      out.add(copy);
    }
    return out;
  }

  // For tests.
  PodManager podManager() {
    return podManager;
  }

  PodWorkers workers() {
    return workers;
  }
}
