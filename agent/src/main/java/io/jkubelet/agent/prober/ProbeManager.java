package io.jkubelet.agent.prober;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Probe;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.runtime.ContainerIds;
import io.jkubelet.agent.util.Executors2;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Schedulers;
import io.jkubelet.config.Records;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one {@link ProbeWorker} per (pod, container, probe type), as upstream's {@code
 * prober.Manager}: workers are added with a pod and removed with it; a restarted container starts
 * over in its worker. Every worker ticks on one shared {@link Scheduler} (created from the injected
 * {@link Schedulers} in {@link #start()}, closed in {@link #stop()}) and runs its attempts on
 * virtual threads that end with the attempt: there is never a thread per probe.
 *
 * <p>Results go to the {@link ResultsManager}, whose changes the sync loop turns into pod syncs;
 * the syncs read them back through {@link #health} (readiness, startup) and {@link #failedProbe}
 * (liveness, startup). Each failed attempt is a Warning {@code Unhealthy} event. A probe that
 * cannot run (a bad definition, gRPC) is reported once with a Warning and counts as never passing:
 * a container with such a readiness probe is never ready, and one with such a startup probe never
 * starts its other probes; such a liveness probe never kills.
 *
 * <p>Thread-safe: {@code this} guards {@link #definitions} and changes to {@link #workers}, {@link
 * #invalid} and {@link #pods}, which are concurrent maps so that queries from pod workers need no
 * lock.
 */
public final class ProbeManager implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(ProbeManager.class);

  /**
   * What the manager works with.
   *
   * @param results where workers publish; its consumer is the sync loop
   * @param exec runs exec probes in containers
   * @param apiStatus the pod's status as last generated, by pod UID: what workers read of their
   *     container, as upstream's workers read the status manager
   * @param recorder where the {@code Unhealthy} events go
   * @param clock the injected clock
   * @param schedulers makes the timer that ticks every worker
   * @param random uniform in [0, 1), for each worker's first delay
   */
  public record Deps(
      ResultsManager results,
      ExecRunner exec,
      Function<String, Optional<PodStatus>> apiStatus,
      EventRecorder recorder,
      Clock clock,
      Schedulers schedulers,
      DoubleSupplier random) {
    public Deps {
      Records.requireNonNull(
          Deps.class, results, exec, apiStatus, recorder, clock, schedulers, random);
    }
  }

  private final Deps deps;
  private final UnhealthyEvents events;

  private final Map<ProbeWorker.Key, ProbeWorker> workers = new ConcurrentHashMap<>();
  private final Map<ProbeWorker.Key, String> invalid = new ConcurrentHashMap<>();

  /**
   * By pod UID, the definition behind each worker or invalid entry, to notice a changed one.
   * Guarded by {@code this}.
   */
  private final Map<String, Map<ProbeWorker.Key, Probe>> definitions = new HashMap<>();

  private final Map<String, Pod> pods = new ConcurrentHashMap<>();

  private Scheduler timer;
  private ExecutorService attempts;
  private ProbeHttp http;
  private ProbeWorker.Shared shared;

  public ProbeManager(Deps deps) {
    this.deps = deps;
    this.events = new UnhealthyEvents(deps.recorder());
  }

  @Override
  public synchronized void start() {
    if (shared != null) {
      return;
    }
    timer = deps.schedulers().create("prober-timer");
    attempts = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("prober-", 0).factory());
    http = new ProbeHttp(Prober.MAX_BODY_BYTES);
    http.start();
    shared =
        new ProbeWorker.Shared(
            deps.results(), this::attempted, deps.clock(), timer, attempts, deps.random());
    log.info("ProbeManager: started");
  }

  @Override
  public synchronized void stop() {
    if (shared == null) {
      return;
    }
    workers.values().forEach(ProbeWorker::stop);
    workers.clear();
    invalid.clear();
    definitions.clear();
    pods.clear();
    timer.close();
    timer = null;
    Executors2.shutdown(attempts, 2000);
    http.stop();
    http = null;
    shared = null;
  }

  @Override
  public synchronized Health healthy() {
    return shared == null ? Health.failing("ProbeManager is not running") : Health.OK;
  }

  /**
   * Adds a worker for each probe of each app container of the pod that has none yet, and starts it;
   * replaces the worker of a probe whose definition changed, and stops those of probes that are
   * gone (a static pod with an explicit UID can be edited in place). Called for every update of the
   * pod, so it is cheap when nothing changed. A definition that cannot run is reported once, as a
   * Warning {@code Unhealthy} event.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public synchronized void addPod(Pod pod) {
    if (shared == null) {
      throw new IllegalStateException("ProbeManager is not started");
    }
    String uid = pod.getMetadata().getUid();
    pods.put(uid, pod);
    Map<ProbeWorker.Key, Probe> wanted = new LinkedHashMap<>();
    for (Container c : pod.getSpec().getContainers()) {
      for (ProbeType type : ProbeType.values()) {
        Probe probe =
            switch (type) {
              case STARTUP -> c.getStartupProbe();
              case LIVENESS -> c.getLivenessProbe();
              case READINESS -> c.getReadinessProbe();
            };
        if (probe != null) {
          wanted.put(new ProbeWorker.Key(uid, c.getName(), type), probe);
        }
      }
    }
    Map<ProbeWorker.Key, Probe> current = definitions.getOrDefault(uid, Map.of());
    if (wanted.equals(current)) {
      return; // the common case: an update of the pod that left its probes alone
    }
    for (ProbeWorker.Key key : List.copyOf(current.keySet())) {
      if (!Objects.equals(wanted.get(key), current.get(key))) {
        forget(key); // gone, or changed: a changed one is added again below
      }
    }
    for (Container c : pod.getSpec().getContainers()) {
      for (ProbeType type : ProbeType.values()) {
        Probe probe = wanted.get(new ProbeWorker.Key(uid, c.getName(), type));
        if (probe != null) {
          add(pod, c, type, probe);
        }
      }
    }
  }

  private void forget(ProbeWorker.Key key) {
    ProbeWorker w = workers.remove(key);
    if (w != null) {
      w.stop();
    }
    invalid.remove(key);
    Map<ProbeWorker.Key, Probe> ofPod = definitions.get(key.podUid());
    if (ofPod != null) {
      ofPod.remove(key);
      if (ofPod.isEmpty()) {
        definitions.remove(key.podUid());
      }
    }
  }

  private void add(Pod pod, Container c, ProbeType type, Probe probe) {
    String uid = pod.getMetadata().getUid();
    ProbeWorker.Key key = new ProbeWorker.Key(uid, c.getName(), type);
    Map<ProbeWorker.Key, Probe> ofPod = definitions.computeIfAbsent(uid, u -> new HashMap<>());
    if (ofPod.containsKey(key)) {
      return;
    }
    ofPod.put(key, probe);
    switch (Probers.of(probe, c, deps.exec(), http)) {
      case ProbeDefinition.Valid v -> {
        ProbeWorker w =
            new ProbeWorker(
                key, v.prober(), v.settings(), () -> snapshot(uid, c.getName()), shared);
        if (type == ProbeType.READINESS) {
          readyBefore(pod, c.getName()).ifPresent(id -> w.seed(id, ProbeResult.SUCCESS));
        }
        workers.put(key, w);
        w.start();
      }
      case ProbeDefinition.InvalidProbe bad -> {
        invalid.put(key, bad.message());
        events.invalid(pod, c.getName(), type, bad.message());
      }
    }
  }

  /**
   * The container's id if the pod as the API server has it says the container is ready: after a
   * restart of jkubelet, its readiness starts from there (upstream starts from unready, which takes
   * every adopted pod out of its Services until the next probe).
   */
  private static Optional<String> readyBefore(Pod pod, String container) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return Optional.empty();
    }
    return pod.getStatus().getContainerStatuses().stream()
        .filter(cs -> container.equals(cs.getName()) && Boolean.TRUE.equals(cs.getReady()))
        .map(cs -> ContainerIds.runtime(cs.getContainerID()))
        .filter(Objects::nonNull)
        .findFirst();
  }

  /** Stops and forgets the pod's workers and their results. */
  public synchronized void removePod(String podUid) {
    pods.remove(podUid);
    for (ProbeWorker.Key key : List.copyOf(definitions.getOrDefault(podUid, Map.of()).keySet())) {
      forget(key);
    }
  }

  /** Removes the workers of every pod not in {@code desired}, as upstream's {@code CleanupPods}. */
  public synchronized void cleanupPods(Set<String> desired) {
    for (String uid : Set.copyOf(pods.keySet())) {
      if (!desired.contains(uid)) {
        removePod(uid);
      }
    }
  }

  /** What the probes say of the pod's containers, for its status. */
  public ContainerHealth health(String podUid) {
    return new ContainerHealth() {
      @Override
      public boolean ready(String container, String containerId) {
        return passed(podUid, container, containerId, ProbeType.READINESS);
      }

      @Override
      public boolean started(String container, String containerId) {
        return passed(podUid, container, containerId, ProbeType.STARTUP);
      }
    };
  }

  /**
   * As upstream's {@code UpdatePodStatus}: the published result when there is one; otherwise
   * whether the container has no such probe at all.
   */
  private boolean passed(String podUid, String container, String containerId, ProbeType type) {
    Optional<ProbeResult> r = deps.results().get(containerId, type);
    if (r.isPresent()) {
      return r.get() == ProbeResult.SUCCESS;
    }
    ProbeWorker.Key key = new ProbeWorker.Key(podUid, container, type);
    return !workers.containsKey(key) && !invalid.containsKey(key);
  }

  /**
   * The probe a running container failed, so that the sync kills and restarts it: {@code LIVENESS}
   * or {@code STARTUP}, or empty.
   */
  public Optional<ProbeType> failedProbe(String containerId) {
    for (ProbeType type : List.of(ProbeType.LIVENESS, ProbeType.STARTUP)) {
      if (deps.results().get(containerId, type).orElse(null) == ProbeResult.FAILURE) {
        return Optional.of(type);
      }
    }
    return Optional.empty();
  }

  /** How regularly each worker's attempts ran, ordered by pod, container and type. */
  public List<ProbeWorker.Stats> stats() {
    List<ProbeWorker.Stats> out = new ArrayList<>();
    workers.values().forEach(w -> out.add(w.stats()));
    out.sort(
        Comparator.comparing((ProbeWorker.Stats s) -> s.key().podUid())
            .thenComparing(s -> s.key().containerName())
            .thenComparing(s -> s.key().type()));
    return out;
  }

  /**
   * The attempts of each live worker by result, for {@code /metrics/probes}; a worker's counts go
   * with it, as upstream deletes a worker's series when it stops.
   */
  public List<ProbeWorker.ResultCounts> resultCounts() {
    List<ProbeWorker.ResultCounts> out = new ArrayList<>();
    workers.values().forEach(w -> out.add(w.results()));
    return out;
  }

  /**
   * The HTTP client of probes, for lifecycle hooks to share.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public synchronized ProbeHttp httpClient() {
    if (http == null) {
      throw new IllegalStateException("ProbeManager is not started");
    }
    return http;
  }

  /** How many pods the manager knows; for {@code jkubelet_cache_entries}. */
  public int podCount() {
    return pods.size();
  }

  /** How many workers there are; for tests and health pages. */
  public int workerCount() {
    return workers.size();
  }

  /** The workers, for tests that run attempts by hand rather than on the timer. */
  List<ProbeWorker> workers() {
    return List.copyOf(workers.values());
  }

  /** Each failed or errored attempt is a Warning {@code Unhealthy} event, as upstream. */
  private void attempted(ProbeWorker.Key key, String containerId, ProbeOutcome outcome) {
    Pod pod = pods.get(key.podUid());
    if (pod != null) { // else removed while the attempt ran
      events.attempted(pod, key, outcome);
    }
  }

  /** What the container looks like in the pod's status now; empty until the status shows it. */
  private Optional<ContainerSnapshot> snapshot(String podUid, String container) {
    Pod pod = pods.get(podUid);
    Optional<PodStatus> status = deps.apiStatus().apply(podUid);
    if (pod == null || status.isEmpty()) {
      return Optional.empty();
    }
    return ContainerSnapshot.of(pod, status.get(), container);
  }
}
