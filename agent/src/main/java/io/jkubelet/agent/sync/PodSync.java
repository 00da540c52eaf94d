package io.jkubelet.agent.sync;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.cm.CgroupException;
import io.jkubelet.agent.cm.ContainerManager;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.kuberuntime.Actions;
import io.jkubelet.agent.kuberuntime.Configs;
import io.jkubelet.agent.kuberuntime.OomEvents;
import io.jkubelet.agent.kuberuntime.PodSyncResult;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.pod.PodPhases;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.prober.ContainerHealth;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.status.ActiveDeadline;
import io.jkubelet.agent.status.ReasonCache;
import io.jkubelet.agent.status.StatusGenerator;
import io.jkubelet.agent.status.StatusManager;
import io.jkubelet.agent.timeline.Phase;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.agent.workers.PodSyncFn;
import io.jkubelet.agent.workers.SyncResult;
import io.jkubelet.agent.workers.UpdatePodOptions;
import io.jkubelet.agent.workers.UpdatePodOptions.KillPodOptions;
import io.jkubelet.agent.workers.WorkType;
import io.jkubelet.config.Records;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sync of one pod, run by its pod worker (upstream's {@code Kubelet.syncPod}): fetch a runtime
 * status newer than the last sync, generate the API status, make the pod's cgroup when it has none
 * yet, let the {@link RuntimeManager} act, then re-inspect the pod at once, so the status and the
 * next sync never wait for a relist.
 *
 * <p>The pod's cgroup, as upstream's: when it does not exist but containers of the pod run, the pod
 * was started outside the hierarchy (by a jkubelet without {@code cgroupsPerQOS}, or under another
 * {@code cgroupRoot}) and is killed, then started again inside it (a pod with {@code restartPolicy:
 * Never} is only killed). NOTE: a pod whose cgroup exists is never killed for its cgroup, so a
 * restart of jkubelet leaves the pods it started running.
 */
public final class PodSync implements PodSyncFn {
  private static final Logger log = LoggerFactory.getLogger(PodSync.class);

  /** Upstream's {@code NetworkNotReadyErrorMsg}. */
  static final String NETWORK_NOT_READY = "network is not ready";

  /** How soon a pod waiting for the network is synced again (upstream: 1 s, jittered). */
  static final Duration NETWORK_RETRY = Duration.ofSeconds(1);

  /** How long a sync waits for the PLEG before it inspects the pod itself. */
  private static final Duration CACHE_WAIT = Duration.ofSeconds(2);

  private final Deps deps;
  private final Inputs inputs;
  private final Cgroups cgroups;
  private final StartupMarks marks;

  /**
   * The pods' cgroups for the sync.
   *
   * @param manager the container manager; {@link ContainerManager#NONE} without {@code
   *     cgroupsPerQOS}
   * @param activePods the pods that are not terminated (upstream's {@code GetActivePods}), whose
   *     cpu requests the Burstable tier's shares are computed from
   */
  public record Cgroups(ContainerManager manager, Supplier<Collection<Pod>> activePods) {
    /** No cgroups of jkubelet's. */
    public static final Cgroups NONE = new Cgroups(ContainerManager.NONE, java.util.List::of);
  }

  /**
   * The collaborators.
   *
   * @param runtime the runtime, to re-inspect the pod after acting
   * @param manager acts on the pod's containers
   * @param cache the runtime's pod statuses, written after a re-inspect
   * @param reasons why containers last failed to start, for their waiting reasons
   * @param reports the events, and the pods' start-up timelines: the pod cgroup, init containers'
   *     exits, the first Ready (with its {@code StartupTimeline} event)
   */
  public record Deps(
      Runtime runtime,
      RuntimeManager manager,
      PodCache cache,
      StatusManager statuses,
      ReasonCache reasons,
      OomEvents oomEvents,
      RuntimeManager.Reports reports,
      Clock clock) {
    public Deps {
      Records.requireNonNull(
          Deps.class, runtime, manager, cache, statuses, reasons, oomEvents, reports, clock);
    }
  }

  /**
   * What a sync reads of the other subsystems.
   *
   * @param hostIp the node's IP, the status's {@code hostIP}
   * @param rejected whether admission rejected the pod: it is then never run
   * @param health what the probes say of a pod's containers, by pod UID
   * @param failedProbes which probe a running container failed, so that it is restarted
   * @param networkError why the pods' network is not ready, if it is not: pods on it then wait
   */
  public record Inputs(
      Supplier<String> hostIp,
      Predicate<Pod> rejected,
      Function<String, ContainerHealth> health,
      Actions.FailedProbes failedProbes,
      Supplier<Optional<String>> networkError) {
    public Inputs {
      Records.requireNonNull(Inputs.class, hostIp, rejected, health, failedProbes, networkError);
    }
  }

  /**
   * @param cgroups the pods' cgroups; {@link Cgroups#NONE} without {@code cgroupsPerQOS}
   */
  public PodSync(Deps deps, Inputs inputs, Cgroups cgroups) {
    this.deps = Objects.requireNonNull(deps, "deps");
    this.inputs = Objects.requireNonNull(inputs, "inputs");
    this.cgroups = Objects.requireNonNull(cgroups, "cgroups");
    this.marks = new StartupMarks(deps.reports().timelines(), deps.reports().recorder());
  }

  @Override
  public SyncResult sync(UpdatePodOptions work, Instant lastSyncTime) throws Exception {
    Pod pod = work.pod();
    PodRef ref = Configs.ref(pod);
    PodCache.Entry entry = statusNewerThan(pod, ref, lastSyncTime);
    PodStatus status = entry.status();
    Instant observed = entry.modified();
    if (work.type() == WorkType.KILL) {
      return kill(pod, ref, status, work.kill());
    }
    if (inputs.rejected().test(pod)) {
      return new SyncResult(observed, null);
    }
    io.fabric8.kubernetes.api.model.PodStatus api = setStatus(pod, status);
    if (PodPhases.isTerminal(api.getPhase())) {
      // A pod that has finished is not restarted; only make sure nothing of it still runs.
      if (status.anyRunning()) {
        deps.manager().killPod(pod, status, null, false);
        updateQos();
        Observed after = inspect(pod, ref);
        setStatus(pod, after.status());
        return new SyncResult(after.at(), null);
      }
      return new SyncResult(observed, null);
    }
    Optional<String> network = inputs.networkError().get();
    if (network.isPresent() && !Boolean.TRUE.equals(pod.getSpec().getHostNetwork())) {
      // As upstream: only host-network pods run until the network is ready (that is how a CNI
      // DaemonSet installs itself); the others are tried again shortly.
      deps.reports()
          .recorder()
          .eventf(
              Refs.pod(pod),
              EventType.Warning,
              Reasons.NETWORK_NOT_READY,
              "%s: %s",
              NETWORK_NOT_READY,
              network.get());
      return new SyncResult(observed, NETWORK_RETRY);
    }
    if (!cgroups.manager().exists(pod)) {
      Optional<Observed> killed = ensureCgroup(pod, ref, status);
      if (killed.isPresent()) {
        status = killed.get().status();
        observed = killed.get().at();
      }
    }
    PodSyncResult result;
    try {
      result = deps.manager().syncPod(pod, status, inputs.failedProbes());
    } catch (RuntimeManager.SyncError e) {
      // Show what is there, then let the worker retry with backoff.
      Observed after = inspect(pod, ref);
      setStatus(pod, after.status());
      throw e;
    }
    rememberStartFailures(ref, result);
    if (result.changed()) {
      Observed after = inspect(pod, ref);
      status = after.status();
      observed = after.at();
    }
    var generated = setStatus(pod, status);
    return new SyncResult(observed, earliest(result.requeueAfter(), deadline(pod, generated)));
  }

  /**
   * Makes the pod's cgroup, which does not exist, as upstream's {@code syncPod}: a pod whose
   * containers run outside it is killed first (and, with {@code restartPolicy: Never}, left
   * killed); the QoS tiers are brought up to date before the pod cgroup is made.
   *
   * @return the pod as it is after a kill; empty when nothing was killed
   * @throws RuntimeManager.SyncError when the cgroup cannot be made (a Warning {@code
   *     FailedCreatePodContainer} event); the worker tries again with backoff
   */
  private Optional<Observed> ensureCgroup(Pod pod, PodRef ref, PodStatus status)
      throws RuntimeManager.SyncError {
    Optional<Observed> killed = Optional.empty();
    if (status.containers().stream().anyMatch(ContainerStatus::running)) {
      log.info(
          "SyncPod {}: its containers run outside the pod's cgroup {}; killing the pod to start it"
              + " again in there",
          PodConfig.fullName(pod),
          cgroups.manager().cgroupParent(pod));
      deps.manager().killPod(pod, status, null, false);
      updateQos();
      killed = Optional.of(inspect(pod, ref));
      if ("Never".equals(pod.getSpec().getRestartPolicy())) {
        return killed; // as upstream: a run-once pod is not run again under the new hierarchy
      }
    }
    updateQos();
    PodTimelines.Span span = deps.reports().timelines().begin(ref.uid(), Phase.POD_CGROUP, null);
    try {
      cgroups.manager().ensurePod(pod);
      span.end();
    } catch (CgroupException e) {
      span.fail(e.getMessage());
      deps.reports()
          .recorder()
          .eventf(
              Refs.pod(pod),
              EventType.Warning,
              Reasons.FAILED_CREATE_POD_CONTAINER,
              "unable to ensure pod container exists: %s",
              e.getMessage());
      throw Errors.withCause(
          new RuntimeManager.SyncError(
              "failed to ensure that the pod: "
                  + ref.uid()
                  + " cgroups exist and are correctly applied: "
                  + e.getMessage()),
          e);
    }
    return killed;
  }

  /** Writes the QoS tiers' shares for the active pods; a failure is logged, as upstream's. */
  private void updateQos() {
    try {
      cgroups.manager().updateQos(cgroups.activePods().get());
    } catch (CgroupException e) {
      log.warn("SyncPod: cannot update the QoS cgroups: {}", e.getMessage());
    }
  }

  /** When the pod's active deadline passes, so that it is synced (and failed) right then. */
  private Duration deadline(Pod pod, io.fabric8.kubernetes.api.model.PodStatus api) {
    Instant start = api.getStartTime() == null ? null : Instant.parse(api.getStartTime());
    return ActiveDeadline.remaining(pod, start, deps.clock().instant())
        .map(d -> d.isNegative() ? Duration.ZERO : d)
        .orElse(null);
  }

  private static Duration earliest(Duration a, Duration b) {
    if (a == null || b == null) {
      return a == null ? b : a;
    }
    return a.compareTo(b) <= 0 ? a : b;
  }

  /**
   * Stops the pod's containers; its status follows while the status manager still has it, or when
   * the pod is being deleted (the status lets the status manager finish the deletion).
   */
  private SyncResult kill(Pod pod, PodRef ref, PodStatus status, KillPodOptions kill)
      throws RuntimeManager.SyncError {
    String name = PodConfig.fullName(pod);
    log.info("SyncPod KILL {}: {}", name, kill.reason());
    Instant start = deps.clock().instant();
    deps.manager().killPod(pod, status, kill.gracePeriodOverride(), kill.removeContainers());
    updateQos();
    Observed after = inspect(pod, ref);
    if (kill.removeContainers()) {
      deps.oomEvents().forget(ref.uid());
    }
    log.info(
        "SyncPod KILL {}: done in {} ms", name, Duration.between(start, after.at()).toMillis());
    if (kill.deletion() || deps.statuses().getPodStatus(ref.uid()).isPresent()) {
      setStatus(pod, after.status());
    }
    return new SyncResult(after.at(), null);
  }

  /** Keeps each container's start failure (reason and message) for its waiting state. */
  private void rememberStartFailures(PodRef ref, PodSyncResult result) {
    for (PodSyncResult.StartResult s : result.starts()) {
      if (s.failure() == null) {
        deps.reasons().remove(ref.uid(), s.container());
      } else {
        deps.reasons().add(ref.uid(), s.container(), s.failure().reason(), s.failure().message());
      }
    }
  }

  private record Observed(PodStatus status, Instant at) {}

  /** Inspects the pod now and records it in the cache: the worker's own fast path. */
  private Observed inspect(Pod pod, PodRef ref) {
    Instant at = deps.clock().instant();
    PodStatus s;
    try {
      s = deps.runtime().podStatus(ref);
    } catch (RuntimeException e) {
      deps.reports()
          .recorder()
          .eventf(
              Refs.pod(pod),
              EventType.Warning,
              Reasons.FAILED_SYNC,
              "error determining status: %s",
              e.getMessage());
      throw e;
    }
    deps.cache().set(ref, s, null, at);
    return new Observed(s, at);
  }

  private PodCache.Entry statusNewerThan(Pod pod, PodRef ref, Instant lastSyncTime)
      throws InterruptedException {
    Optional<PodCache.Entry> e = deps.cache().getNewerThan(ref, lastSyncTime, CACHE_WAIT);
    if (e.isPresent() && e.get().error() == null) {
      return e.get();
    }
    // The PLEG has not caught up (or failed on this pod): look ourselves.
    Observed o = inspect(pod, ref);
    return new PodCache.Entry(o.status(), null, o.at());
  }

  private io.fabric8.kubernetes.api.model.PodStatus setStatus(Pod pod, PodStatus status) {
    deps.oomEvents().observe(pod, status);
    // As upstream: the status last generated, else the one the API server has (after a restart of
    // jkubelet), so that transition times, the start time and terminated states carry over.
    var previous = deps.statuses().getPodStatus(pod.getMetadata().getUid()).orElse(pod.getStatus());
    var api =
        StatusGenerator.generate(
            pod,
            status,
            deps.reasons(),
            previous,
            deps.clock().instant(),
            inputs.hostIp().get(),
            inputs.health().apply(pod.getMetadata().getUid()));
    if (ActiveDeadline.REASON.equals(api.getReason())
        && !ActiveDeadline.REASON.equals(previous == null ? null : previous.getReason())) {
      deps.reports()
          .recorder()
          .event(Refs.pod(pod), EventType.Normal, ActiveDeadline.REASON, ActiveDeadline.MESSAGE);
    }
    deps.statuses().setPodStatus(pod, api);
    marks.observe(pod, status, api);
    return api;
  }
}
