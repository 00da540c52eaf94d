package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.dns.PodHostname;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.lifecycle.HookRunner;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.agent.pod.PodSpecs;
import io.jkubelet.agent.pod.WaitingReasons;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.SandboxStatus;
import io.jkubelet.agent.timeline.Phase;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.agent.volume.MountFailure;
import io.jkubelet.agent.volume.VolumeManager;
import io.jkubelet.config.Records;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out what a pod needs from the runtime, as upstream's {@code kubeGenericRuntimeManager}:
 * {@link #syncPod} computes the {@link PodActions} and performs them in order (kill, sandbox, init
 * container, app containers); {@link #killPod} stops everything with the grace period. Starting a
 * container is {@link ContainerStarter}'s job and stopping one {@link ContainerKiller}'s.
 *
 * <p>Thread-safe: it keeps no per-pod state of its own (backoffs are thread-safe), and pod workers
 * call it for different pods at once.
 */
public final class RuntimeManager {
  private static final Logger log = LoggerFactory.getLogger(RuntimeManager.class);

  /** The upstream kubelet never kills with less than 2 s of grace. */
  public static final Duration MIN_GRACE = Duration.ofSeconds(2);

  /** When a container whose config or create failed is tried again (upstream's error requeue). */
  static final Duration CONFIG_ERROR_RETRY = Duration.ofSeconds(10);

  private final Runtime runtime;
  private final ImagePuller images;
  private final VolumeManager volumes;
  private final EventRecorder recorder;
  private final Backoff crashBackoff;
  private final String infraImage;
  private final int oomScoreAdj;
  private final ContainerKiller killer;
  private final ContainerStarter starter;
  private final NodeContext node;
  private final PreStopsRunning preStops;
  private final PodTimelines timelines;

  /**
   * The collaborators.
   *
   * @param images pulls the pods' images and the sandbox image
   * @param objects the secrets and configMaps containers' environments read
   * @param crashBackoff the crash-loop backoff, keyed by pod and container
   * @param reports where the syncs tell what they did
   */
  public record Deps(
      Runtime runtime,
      ImagePuller images,
      VolumeManager volumes,
      HookRunner hooks,
      PodObjects objects,
      Backoff crashBackoff,
      Reports reports,
      Clock clock) {
    public Deps {
      Records.requireNonNull(
          Deps.class, runtime, images, volumes, hooks, objects, crashBackoff, reports, clock);
    }
  }

  /**
   * Where the syncs tell what they did.
   *
   * @param recorder the pods' events
   * @param timelines the pods' start-up timelines: sandbox, volumes, container starts
   */
  public record Reports(EventRecorder recorder, PodTimelines timelines) {
    public Reports {
      Records.requireNonNull(Reports.class, recorder, timelines);
    }
  }

  /**
   * The settings, and what containers learn of their node.
   *
   * @param infraImage the sandbox image ({@code --pod-infra-container-image})
   * @param oomScoreAdj the sandbox's OOM score adjustment ({@code podInfraOomScoreAdj})
   * @param hostIp the node's IP, as {@code status.hostIP} for the downward API
   */
  public record Options(
      String infraImage, int oomScoreAdj, NodeContext node, Supplier<String> hostIp) {
    public Options {
      Records.requireNonNull(Options.class, infraImage, node, hostIp);
    }
  }

  /**
   * @param parallel where a pod's containers are stopped in parallel
   */
  public RuntimeManager(Deps deps, Options options, ExecutorService parallel) {
    this.node = options.node();
    this.runtime = deps.runtime();
    this.images = deps.images();
    this.volumes = deps.volumes();
    this.recorder = deps.reports().recorder();
    this.crashBackoff = deps.crashBackoff();
    this.infraImage = options.infraImage();
    this.oomScoreAdj = options.oomScoreAdj();
    this.preStops = new PreStopsRunning(deps.clock());
    this.killer =
        new ContainerKiller(runtime, recorder, deps.clock(), parallel, deps.hooks(), preStops);
    this.starter = new ContainerStarter(deps, options, killer);
    this.timelines = deps.reports().timelines();
  }

  /** A sync that could not get the pod going at all (sandbox, volumes): retried with backoff. */
  public static final class SyncError extends Exception {
    public SyncError(String message) {
      super(message);
    }
  }

  /**
   * Brings the pod's containers to what its spec asks.
   *
   * @param failedProbes which probe, if any, a running container (by runtime id) failed
   */
  public PodSyncResult syncPod(Pod pod, PodStatus status, Actions.FailedProbes failedProbes)
      throws SyncError {
    PodActions actions = Actions.compute(pod, status, failedProbes);
    if (actions.isNoop()) {
      // Volumes are set up on every sync, so updated secrets, configMaps and projected
      // metadata reach the files of running containers (only a changed payload is written).
      setUpVolumes(pod);
      return PodSyncResult.NOOP;
    }
    log.debug("RuntimeManager: actions for pod {}: {}", pod.getMetadata().getName(), actions);
    if (actions.createSandbox() && !actions.sandboxId().isEmpty()) {
      recorder.event(
          Refs.pod(pod),
          EventType.Normal,
          Reasons.SANDBOX_CHANGED,
          "Pod sandbox changed, it will be killed and re-created.");
    }
    if (actions.killPod()) {
      killPod(pod, status, null, false);
      if (!actions.createSandbox()) {
        return new PodSyncResult(true, List.of(), null);
      }
      purgeInitContainers(pod, status);
    } else if (!actions.containersToKill().isEmpty()) {
      List<String> errors = killer.killContainers(pod, status, actions.containersToKill());
      if (!errors.isEmpty()) {
        throw new SyncError("error killing containers: " + String.join("; ", errors));
      }
    }
    Map<String, Path> volumePaths = setUpVolumes(pod);
    ContainerStarter.Placement at = place(pod, status, actions, volumePaths);
    return startContainers(pod, status, actions, at);
  }

  /** Sets up the pod's volumes; each failing one has had its {@code FailedMount} event. */
  private Map<String, Path> setUpVolumes(Pod pod) throws SyncError {
    PodTimelines.Span span = timelines.begin(pod.getMetadata().getUid(), Phase.VOLUMES, null);
    try {
      Map<String, Path> paths = volumes.setUp(pod);
      span.end();
      return paths;
    } catch (MountFailure e) {
      span.fail("volume " + e.volume() + ": " + e.getMessage());
      throw Errors.withCause(new SyncError("volume " + e.volume() + ": " + e.getMessage()), e);
    }
  }

  /**
   * The sandbox the containers go into (a new one when the actions ask), and the pod's IP, looked
   * up at most once and only when a container needs it.
   */
  private ContainerStarter.Placement place(
      Pod pod, PodStatus status, PodActions actions, Map<String, Path> volumePaths)
      throws SyncError {
    String sandboxId =
        actions.createSandbox() ? createSandbox(pod, actions.attempt()) : actions.sandboxId();
    String[] podIp = {actions.createSandbox() ? null : status.ip()};
    Supplier<String> ip =
        () -> {
          if (podIp[0] == null) {
            podIp[0] =
                runtime.podStatus(Configs.ref(pod)).sandboxes().stream()
                    .filter(s -> s.id().equals(sandboxId))
                    .map(SandboxStatus::ip)
                    .findFirst()
                    .orElse("");
          }
          return podIp[0];
        };
    return new ContainerStarter.Placement(sandboxId, status, volumePaths, ip);
  }

  private PodSyncResult startContainers(
      Pod pod, PodStatus status, PodActions actions, ContainerStarter.Placement at) {
    List<PodSyncResult.StartResult> starts = new ArrayList<>();
    Duration requeue = null;
    List<Container> toStart = new ArrayList<>();
    if (actions.nextInitContainer() != null) {
      toStart.add(actions.nextInitContainer());
    }
    for (int idx : actions.containersToStart()) {
      toStart.add(pod.getSpec().getContainers().get(idx));
    }
    for (Container c : toStart) {
      boolean init = c == actions.nextInitContainer();
      StartFailure f = starter.start(pod, c, init, at).orElse(null);
      starts.add(new PodSyncResult.StartResult(c.getName(), init, f));
      requeue = retryAfter(pod, c, status, f, requeue);
    }
    return new PodSyncResult(true, starts, requeue);
  }

  /** When a failed start can be tried again: when its backoff ends. */
  private Duration retryAfter(
      Pod pod, Container c, PodStatus status, StartFailure f, Duration current) {
    if (f == null) {
      return current;
    }
    Duration d =
        switch (f.reason()) {
          case WaitingReasons.CRASH_LOOP_BACK_OFF ->
              status
                  .latest(c.getName())
                  .filter(ContainerStatus::exited)
                  .map(
                      s ->
                          crashBackoff.remaining(
                              ContainerStarter.backoffKey(pod, c), starter.finishedAt(s)))
                  .orElse(Duration.ofSeconds(1));
          // Right after a failed pull, sync again soon: the pod then shows ImagePullBackOff for
          // the rest of the backoff, as users expect, rather than ErrImagePull throughout.
          case WaitingReasons.ERR_IMAGE_PULL ->
              min(Duration.ofSeconds(1), images.backoffRemaining(pod, c.getImage()));
          case WaitingReasons.IMAGE_PULL_BACK_OFF -> images.backoffRemaining(pod, c.getImage());
          // A missing ConfigMap, Secret or key may appear at any time: try again as upstream's pod
          // workers retry a failed sync, rather than at the next resync.
          case WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR,
              WaitingReasons.CREATE_CONTAINER_ERROR ->
              CONFIG_ERROR_RETRY;
          default -> null;
        };
    if (d == null) {
      return current;
    }
    return current == null || d.compareTo(current) < 0 ? d : current;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private String createSandbox(Pod pod, int attempt) throws SyncError {
    PodTimelines.Span span = timelines.begin(pod.getMetadata().getUid(), Phase.SANDBOX, null);
    try {
      if (!images.present(infraImage)) {
        span.note("pulled the sandbox image " + infraImage);
        images.pullInfra(infraImage, Duration.ofMinutes(2));
      }
      String hostname = PodHostname.of(pod, node.dns().clusterDomain()).kernelHostname(pod);
      String id =
          runtime.runPodSandbox(
              Configs.sandbox(
                  pod,
                  attempt,
                  infraImage,
                  oomScoreAdj,
                  node.dns().forPod(pod),
                  hostname,
                  node.cgroupParent().apply(pod)));
      span.end();
      return id;
    } catch (RuntimeError | IllegalArgumentException e) {
      span.fail(e.getMessage());
      if (e instanceof RuntimeError r && r.kind() == RuntimeError.Kind.NOT_FOUND) {
        images.forget(infraImage);
      }
      recorder.eventf(
          Refs.pod(pod),
          EventType.Warning,
          Reasons.FAILED_CREATE_POD_SANDBOX,
          "Failed to create pod sandbox: %s",
          e.getMessage());
      throw Errors.withCause(new SyncError("failed to create pod sandbox: " + e.getMessage()), e);
    }
  }

  /**
   * Stops every running container of the pod, in parallel, each with the grace period; then the
   * sandboxes. With {@code remove}, removes them all afterwards. A failure is a Warning {@code
   * FailedKillPod} and a {@link SyncError}.
   *
   * @param pod the pod, for the grace period and events; may be one made from container labels
   * @param graceOverride replaces the pod's grace period, or null
   */
  public void killPod(Pod pod, PodStatus status, Duration graceOverride, boolean remove)
      throws SyncError {
    List<String> errors = killer.killPod(pod, status, graceOverride, remove);
    if (!errors.isEmpty()) {
      String msg = String.join("; ", errors);
      recorder.eventf(
          Refs.pod(pod), EventType.Warning, Reasons.FAILED_KILL_POD, "error killing pod: %s", msg);
      throw new SyncError("error killing pod: " + msg);
    }
  }

  /** The preStop hooks running now, which a pod's stop waits on. */
  public PreStopsRunning preStopsRunning() {
    return preStops;
  }

  /** Removes every init container of the pod: a new sandbox runs them all again. */
  private void purgeInitContainers(Pod pod, PodStatus status) {
    Set<String> inits = new HashSet<>();
    PodSpecs.initContainers(pod).forEach(c -> inits.add(c.getName()));
    for (ContainerStatus c : status.containers()) {
      if (inits.contains(c.name()) && !c.running()) {
        removeQuietly(c.id());
      }
    }
  }

  /**
   * Removes exited containers beyond the newest {@code keep} exited ones of each name (at least one
   * is kept), and dead sandboxes other than the newest that no container uses any more. Only exited
   * containers are candidates, as upstream's {@code podContainerDeletor}: one that runs, or was
   * created and not yet started (a restart in progress), is never removed and never takes the place
   * of the newest exited one, which the status shows as lastState.
   */
  public int removeDeadContainers(PodStatus status, int keep) {
    int removed = 0;
    Map<String, Integer> keptByName = new HashMap<>();
    Set<String> usedSandboxes = new HashSet<>();
    for (ContainerStatus c : status.containers()) { // newest first
      if (!c.exited() || keptByName.merge(c.name(), 1, Integer::sum) <= Math.max(keep, 1)) {
        usedSandboxes.add(c.sandboxId());
        continue;
      }
      if (removeQuietly(c.id())) {
        removed++;
      }
    }
    List<SandboxStatus> sandboxes = status.sandboxes();
    for (int i = 1; i < sandboxes.size(); i++) {
      SandboxStatus s = sandboxes.get(i);
      if (!s.ready() && !usedSandboxes.contains(s.id()) && removeQuietly(s.id())) {
        removed++;
      }
    }
    return removed;
  }

  private boolean removeQuietly(String id) {
    try {
      runtime.removeContainer(id);
      return true;
    } catch (RuntimeError e) {
      log.warn("RuntimeManager: cannot remove container {}: {}", id, e.getMessage());
      return false;
    }
  }

  /** The pod reference of a runtime pod, for pods known only from container labels. */
  public static PodRef ref(Pod pod) {
    return Configs.ref(pod);
  }
}
