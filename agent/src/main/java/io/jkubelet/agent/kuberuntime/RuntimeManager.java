package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.lifecycle.HookRunner;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.SandboxStatus;
import io.jkubelet.agent.util.Backoff;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out what a pod needs from the runtime, as upstream's {@code kubeGenericRuntimeManager}:
 * {@link #syncPod} computes the {@link PodActions} and performs them in order (kill, sandbox, init
 * container, app containers); {@link #killPod} stops everything with the grace period.
 *
 * <p>Thread-safe: it keeps no per-pod state of its own (backoffs are thread-safe), and pod workers
 * call it for different pods at once.
 */
public final class RuntimeManager {
  private static final Logger log = LoggerFactory.getLogger(RuntimeManager.class);

  /** The upstream kubelet never kills with less than 2 s of grace. */
  public static final Duration MIN_GRACE = Duration.ofSeconds(2);

  /** The pause container exits on SIGTERM; this only bounds a broken one. */
  private static final Duration SANDBOX_GRACE = Duration.ofSeconds(10);

  private final Runtime runtime;
  private final ImagePuller images;
  private final Volumes volumes;
  private final EventRecorder recorder;
  private final Clock clock;
  private final Backoff crashBackoff;
  private final String infraImage;
  private final int oomScoreAdj;
  private final Supplier<String> hostIp;
  private final ExecutorService parallel;
  private final HookRunner hooks;

  /** How long a postStart hook may run before it counts as failed (upstream has no bound). */
  static final Duration POST_START_TIMEOUT = Duration.ofMinutes(2);

  public RuntimeManager(
      Runtime runtime,
      ImagePuller images,
      Volumes volumes,
      EventRecorder recorder,
      Clock clock,
      Backoff crashBackoff,
      String infraImage,
      int oomScoreAdj,
      Supplier<String> hostIp,
      ExecutorService parallel,
      HookRunner hooks) {
    this.hooks = hooks;
    this.runtime = runtime;
    this.images = images;
    this.volumes = volumes;
    this.recorder = recorder;
    this.clock = clock;
    this.crashBackoff = crashBackoff;
    this.infraImage = infraImage;
    this.oomScoreAdj = oomScoreAdj;
    this.hostIp = hostIp;
    this.parallel = parallel;
  }

  /** A sync that could not get the pod going at all (sandbox, volumes): retried with backoff. */
  public static final class SyncError extends Exception {
    public SyncError(String message, Throwable cause) {
      super(message, cause);
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
      return PodSyncResult.NOOP;
    }
    log.debug("RuntimeManager: actions for pod {}: {}", pod.getMetadata().getName(), actions);
    ObjectReference podRef = Refs.pod(pod);

    if (actions.createSandbox()) {
      if (!actions.sandboxId().isEmpty()) {
        recorder.event(
            podRef,
            EventType.Normal,
            Reasons.SANDBOX_CHANGED,
            "Pod sandbox changed, it will be killed and re-created.");
      }
    }
    if (actions.killPod()) {
      killPod(pod, status, null, false);
      if (!actions.createSandbox()) {
        return new PodSyncResult(true, List.of(), null);
      }
      purgeInitContainers(pod, status);
    } else if (!actions.containersToKill().isEmpty()) {
      killContainers(pod, status, actions.containersToKill());
    }

    Map<String, Path> volumePaths;
    try {
      volumePaths = volumes.setUp(pod);
    } catch (Volumes.MountFailure e) {
      recorder.eventf(
          podRef,
          EventType.Warning,
          Reasons.FAILED_MOUNT,
          "MountVolume.SetUp failed for volume \"%s\" : %s",
          e.volume(),
          e.getMessage());
      throw new SyncError("volume " + e.volume() + ": " + e.getMessage(), e);
    }

    String sandboxId = actions.sandboxId();
    String[] podIp = {null};
    if (actions.createSandbox()) {
      sandboxId = createSandbox(pod, actions.attempt(), podRef);
    } else {
      podIp[0] = status.ip();
    }
    final String sid = sandboxId;
    Supplier<String> ipSupplier =
        () -> {
          if (podIp[0] == null) {
            podIp[0] =
                runtime.podStatus(Configs.ref(pod)).sandboxes().stream()
                    .filter(s -> s.id().equals(sid))
                    .map(SandboxStatus::ip)
                    .findFirst()
                    .orElse("");
          }
          return podIp[0];
        };

    List<PodSyncResult.StartResult> starts = new ArrayList<>();
    Duration requeue = null;
    if (actions.nextInitContainer() != null) {
      Container c = actions.nextInitContainer();
      StartFailure f = startContainer(pod, c, true, sid, status, volumePaths, ipSupplier);
      starts.add(new PodSyncResult.StartResult(c.getName(), true, f));
      requeue = retryAfter(pod, c, status, f, requeue);
    }
    for (int idx : actions.containersToStart()) {
      Container c = pod.getSpec().getContainers().get(idx);
      StartFailure f = startContainer(pod, c, false, sid, status, volumePaths, ipSupplier);
      starts.add(new PodSyncResult.StartResult(c.getName(), false, f));
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
                  .map(s -> crashBackoff.remaining(backoffKey(pod, c), finishedAt(s)))
                  .orElse(Duration.ofSeconds(1));
          // Right after a failed pull, sync again soon: the pod then shows ImagePullBackOff for
          // the rest of the backoff, as users expect, rather than ErrImagePull throughout.
          case WaitingReasons.ERR_IMAGE_PULL ->
              min(Duration.ofSeconds(1), images.backoffRemaining(pod, c.getImage()));
          case WaitingReasons.IMAGE_PULL_BACK_OFF -> images.backoffRemaining(pod, c.getImage());
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

  private String createSandbox(Pod pod, int attempt, ObjectReference podRef) throws SyncError {
    try {
      if (!images.present(infraImage)) {
        runtime.pullImage(infraImage, Duration.ofMinutes(2));
      }
      return runtime.runPodSandbox(Configs.sandbox(pod, attempt, infraImage, oomScoreAdj));
    } catch (RuntimeError e) {
      if (e.kind() == RuntimeError.Kind.NOT_FOUND) {
        images.forget(infraImage);
      }
      recorder.eventf(
          podRef,
          EventType.Warning,
          Reasons.FAILED_CREATE_POD_SANDBOX,
          "Failed to create pod sandbox: %s",
          e.getMessage());
      throw new SyncError("failed to create pod sandbox: " + e.getMessage(), e);
    }
  }

  /** Starts one container; returns null on success, or why it did not start. */
  private StartFailure startContainer(
      Pod pod,
      Container c,
      boolean init,
      String sandboxId,
      PodStatus status,
      Map<String, Path> volumePaths,
      Supplier<String> podIp) {
    ObjectReference ref = Refs.container(pod, c.getName(), init);
    Optional<ContainerStatus> latest = status.latest(c.getName());
    try {
      Optional<ContainerStatus> lastExit =
          status.containers().stream()
              .filter(s -> s.name().equals(c.getName()) && s.exited())
              .findFirst();
      if (lastExit.isPresent()) {
        String key = backoffKey(pod, c);
        Instant finished = finishedAt(lastExit.get());
        if (crashBackoff.isInBackOffSince(key, finished)) {
          recorder.event(
              ref, EventType.Warning, Reasons.BACK_OFF, "Back-off restarting failed container");
          throw new StartFailure(
              WaitingReasons.CRASH_LOOP_BACK_OFF,
              String.format(
                  "back-off %s restarting failed container=%s pod=%s_%s(%s)",
                  goDuration(crashBackoff.get(key)),
                  c.getName(),
                  pod.getMetadata().getName(),
                  pod.getMetadata().getNamespace(),
                  pod.getMetadata().getUid()));
        }
        crashBackoff.next(key, finished);
      }
      images.ensure(pod, c, ref);
      int restartCount = latest.map(s -> s.restartCount() + 1).orElse(0);
      List<EnvVar> env = Env.resolve(pod, c, podIp, hostIp.get());
      ContainerConfig config =
          Configs.container(pod, c, init, sandboxId, restartCount, volumePaths, env);
      String id;
      try {
        id = runtime.createContainer(sandboxId, config);
      } catch (RuntimeError e) {
        if (e.kind() == RuntimeError.Kind.NOT_FOUND) {
          images.forget(c.getImage()); // removed since we looked: the next sync pulls it again
        }
        recorder.eventf(ref, EventType.Warning, Reasons.FAILED, "Error: %s", e.getMessage());
        throw new StartFailure(WaitingReasons.CREATE_CONTAINER_ERROR, e.getMessage());
      }
      recorder.eventf(ref, EventType.Normal, Reasons.CREATED, "Created container %s", c.getName());
      try {
        runtime.startContainer(id);
      } catch (RuntimeError e) {
        recorder.eventf(ref, EventType.Warning, Reasons.FAILED, "Error: %s", e.getMessage());
        throw new StartFailure(WaitingReasons.RUN_CONTAINER_ERROR, e.getMessage());
      }
      recorder.eventf(ref, EventType.Normal, Reasons.STARTED, "Started container %s", c.getName());
      if (c.getLifecycle() != null && c.getLifecycle().getPostStart() != null) {
        Optional<String> failed =
            hooks.run(pod, c, id, podIp.get(), c.getLifecycle().getPostStart(), POST_START_TIMEOUT);
        if (failed.isPresent()) {
          recorder.event(ref, EventType.Warning, Reasons.FAILED_POST_START_HOOK, failed.get());
          killContainer(
              pod,
              new Target(c.getName(), id, init, podIp.get()),
              gracePeriod(pod, null, Map.of()),
              "FailedPostStartHook");
          throw new StartFailure(WaitingReasons.POST_START_HOOK_ERROR, failed.get());
        }
      }
      return null;
    } catch (StartFailure f) {
      if (isImageFailure(f.reason())) {
        recorder.eventf(ref, EventType.Warning, Reasons.FAILED, "Error: %s", f.reason());
      } else if (WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR.equals(f.reason())) {
        recorder.eventf(ref, EventType.Warning, Reasons.FAILED, "Error: %s", f.getMessage());
      }
      log.info(
          "RuntimeManager: container {} of pod {} not started: {}: {}",
          c.getName(),
          pod.getMetadata().getName(),
          f.reason(),
          f.getMessage());
      return f;
    } catch (RuntimeError e) {
      recorder.eventf(ref, EventType.Warning, Reasons.FAILED, "Error: %s", e.getMessage());
      return new StartFailure(WaitingReasons.RUN_CONTAINER_ERROR, e.getMessage());
    }
  }

  private static boolean isImageFailure(String reason) {
    return switch (reason) {
      case WaitingReasons.ERR_IMAGE_PULL,
          WaitingReasons.IMAGE_PULL_BACK_OFF,
          WaitingReasons.ERR_IMAGE_NEVER_PULL,
          WaitingReasons.INVALID_IMAGE_NAME ->
          true;
      default -> false;
    };
  }

  /**
   * The crash-loop backoff key: pod, container and spec hash, as upstream's {@code getStableKey}.
   */
  static String backoffKey(Pod pod, Container c) {
    return pod.getMetadata().getUid() + "/" + c.getName() + "/" + ContainerHash.of(c);
  }

  private Instant finishedAt(ContainerStatus s) {
    return s.finishedAt() != null ? s.finishedAt() : clock.instant();
  }

  /**
   * Stops every running container of the pod, in parallel, each with the grace period; then the
   * sandboxes. With {@code remove}, removes them all afterwards.
   *
   * @param pod the pod, for the grace period and events; may be one made from container labels
   * @param graceOverride replaces the pod's grace period, or null
   */
  public void killPod(Pod pod, PodStatus status, Duration graceOverride, boolean remove)
      throws SyncError {
    List<String> errors = new ArrayList<>();
    List<Future<?>> kills = new ArrayList<>();
    for (ContainerStatus c : status.containers()) {
      if (c.running() || c.state() == io.jkubelet.agent.runtime.ContainerState.UNKNOWN) {
        Duration grace = gracePeriod(pod, graceOverride, c.labels());
        kills.add(
            parallel.submit(
                () -> {
                  killContainer(pod, Target.of(c, status), grace, "Stopping container " + c.name());
                  return null;
                }));
      }
    }
    await(kills, errors);
    for (SandboxStatus s : status.sandboxes()) {
      if (s.ready()) {
        try {
          runtime.stopPodSandbox(s.id(), SANDBOX_GRACE);
        } catch (RuntimeError e) {
          errors.add("stop sandbox " + s.id() + ": " + e.getMessage());
        }
      }
    }
    if (remove) {
      for (ContainerStatus c : status.containers()) {
        try {
          runtime.removeContainer(c.id());
        } catch (RuntimeError e) {
          errors.add("remove container " + c.name() + ": " + e.getMessage());
        }
      }
      for (SandboxStatus s : status.sandboxes()) {
        try {
          runtime.removePodSandbox(s.id());
        } catch (RuntimeError e) {
          errors.add("remove sandbox " + s.id() + ": " + e.getMessage());
        }
      }
    }
    if (!errors.isEmpty()) {
      String msg = String.join("; ", errors);
      recorder.eventf(
          Refs.pod(pod), EventType.Warning, Reasons.FAILED_KILL_POD, "error killing pod: %s", msg);
      throw new SyncError("error killing pod: " + msg, null);
    }
  }

  private void killContainers(Pod pod, PodStatus status, Map<String, PodActions.KillInfo> toKill)
      throws SyncError {
    List<Future<?>> kills = new ArrayList<>();
    for (ContainerStatus c : status.containers()) {
      PodActions.KillInfo info = toKill.get(c.id());
      if (info != null) {
        Duration grace = gracePeriod(pod, null, c.labels());
        kills.add(
            parallel.submit(
                () -> {
                  killContainer(pod, Target.of(c, status), grace, info.message());
                  return null;
                }));
      }
    }
    List<String> errors = new ArrayList<>();
    await(kills, errors);
    if (!errors.isEmpty()) {
      throw new SyncError("error killing containers: " + String.join("; ", errors), null);
    }
  }

  /** A container to kill: its name, runtime id, kind, and its pod's IP (for an HTTP preStop). */
  record Target(String name, String id, boolean init, String podIp) {
    static Target of(ContainerStatus c, PodStatus status) {
      return new Target(
          c.name(), c.id(), "init".equals(c.labels().get(Labels.CONTAINER_KIND)), status.ip());
    }
  }

  /**
   * Kills one container as upstream's {@code killContainer}: the Killing event, the preStop hook
   * (within the grace period, whose rest is then the stop's grace, never under {@link #MIN_GRACE}),
   * then SIGTERM and SIGKILL after the grace period. A failed preStop hook is a Warning {@code
   * FailedPreStopHook}, and the kill goes on.
   */
  private void killContainer(Pod pod, Target c, Duration grace, String message) {
    var ref = Refs.container(pod, c.name(), c.init());
    recorder.event(ref, EventType.Normal, Reasons.KILLING, message);
    Instant start = clock.instant();
    Container spec = spec(pod, c.name(), c.init());
    if (spec != null && spec.getLifecycle() != null && spec.getLifecycle().getPreStop() != null) {
      hooks
          .run(pod, spec, c.id(), c.podIp(), spec.getLifecycle().getPreStop(), grace)
          .ifPresent(
              msg -> recorder.event(ref, EventType.Warning, Reasons.FAILED_PRE_STOP_HOOK, msg));
      Duration left = grace.minus(Duration.between(start, clock.instant()));
      grace = left.compareTo(MIN_GRACE) < 0 ? MIN_GRACE : left;
      start = clock.instant();
    }
    runtime.stopContainer(c.id(), grace);
    // SIGKILL follows the grace period at once; a runtime that takes much longer is stuck.
    if (Duration.between(start, clock.instant()).compareTo(grace.plus(EXCEEDED_GRACE_SLACK)) > 0) {
      recorder.event(
          ref,
          EventType.Warning,
          Reasons.EXCEEDED_GRACE_PERIOD,
          "Container runtime did not kill the pod within specified grace period.");
    }
  }

  /** The container's spec in the pod, or null (a pod made from labels has none). */
  private static Container spec(Pod pod, String name, boolean init) {
    if (pod.getSpec() == null) {
      return null;
    }
    List<Container> list = init ? Actions.inits(pod) : pod.getSpec().getContainers();
    if (list == null) {
      return null;
    }
    return list.stream().filter(x -> name.equals(x.getName())).findFirst().orElse(null);
  }

  /** How much longer than the grace period a stop may take before it counts as exceeded. */
  static final Duration EXCEEDED_GRACE_SLACK = Duration.ofSeconds(5);

  private static void await(List<Future<?>> futures, List<String> errors) {
    for (Future<?> f : futures) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        errors.add("interrupted");
        return;
      } catch (ExecutionException e) {
        errors.add(e.getCause().getMessage());
      }
    }
  }

  /**
   * The grace period for stopping a container: the override, else the pod's deletion or termination
   * grace period, else (for an orphan known only from the runtime) the one recorded on the
   * container; never under {@link #MIN_GRACE}.
   */
  static Duration gracePeriod(Pod pod, Duration override, Map<String, String> labels) {
    Duration d;
    if (override != null) {
      d = override;
    } else if (pod.getMetadata().getDeletionGracePeriodSeconds() != null) {
      d = Duration.ofSeconds(pod.getMetadata().getDeletionGracePeriodSeconds());
    } else if (pod.getSpec() != null && pod.getSpec().getTerminationGracePeriodSeconds() != null) {
      d = Duration.ofSeconds(pod.getSpec().getTerminationGracePeriodSeconds());
    } else {
      d = Duration.ofSeconds(Labels.intLabel(labels, Labels.TERMINATION_GRACE_PERIOD, 30));
    }
    return d.compareTo(MIN_GRACE) < 0 ? MIN_GRACE : d;
  }

  /** Removes every init container of the pod: a new sandbox runs them all again. */
  private void purgeInitContainers(Pod pod, PodStatus status) {
    Set<String> inits = new HashSet<>();
    Actions.inits(pod).forEach(c -> inits.add(c.getName()));
    for (ContainerStatus c : status.containers()) {
      if (inits.contains(c.name()) && !c.running()) {
        removeQuietly(c.id());
      }
    }
  }

  /**
   * Removes dead containers beyond the newest dead one of each name, and dead sandboxes other than
   * the newest that no container uses any more. Never touches a running container.
   */
  public int removeDeadContainers(PodStatus status) {
    int removed = 0;
    Set<String> keptNames = new HashSet<>();
    List<ContainerStatus> newestFirst = status.containers();
    Set<String> usedSandboxes = new HashSet<>();
    for (ContainerStatus c : newestFirst) {
      // Keep what runs, and the newest dead container of each name (its lastState).
      if (c.running() || keptNames.add(c.name())) {
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

  /** Go's duration format for whole seconds, as in {@code back-off 20s}, {@code 5m0s}. */
  static String goDuration(Duration d) {
    long s = d.toSeconds();
    if (s < 60) {
      return s + "s";
    }
    return (s / 60) + "m" + (s % 60) + "s";
  }
}
