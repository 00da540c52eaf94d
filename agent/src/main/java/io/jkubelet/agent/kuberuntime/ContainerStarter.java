package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.cm.OomScoreAdj;
import io.jkubelet.agent.dns.HostsFile;
import io.jkubelet.agent.dns.PodHostname;
import io.jkubelet.agent.env.DownwardApi;
import io.jkubelet.agent.env.EnvException;
import io.jkubelet.agent.env.EnvResolver;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.lifecycle.HookRunner;
import io.jkubelet.agent.pod.WaitingReasons;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.timeline.Phase;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.config.Durations;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts one container as upstream's {@code startContainer}: the crash-loop backoff check, the
 * image, the configuration, create and start, then the postStart hook. Each step that fails records
 * upstream's event and gives the container's {@link StartFailure}.
 *
 * <p>Thread-safe: its only state is the crash-loop {@link Backoff}, which is.
 */
final class ContainerStarter {
  private static final Logger log = LoggerFactory.getLogger(ContainerStarter.class);

  /** How long a postStart hook may run before it counts as failed (upstream has no bound). */
  static final Duration POST_START_TIMEOUT = Duration.ofMinutes(2);

  private final Runtime runtime;
  private final ImagePuller images;
  private final EventRecorder recorder;
  private final Clock clock;
  private final Backoff crashBackoff;
  private final Supplier<String> hostIp;
  private final EnvResolver env;
  private final NodeContext node;
  private final HookRunner hooks;
  private final ContainerKiller killer;
  private final PodTimelines timelines;

  ContainerStarter(
      RuntimeManager.Deps deps, RuntimeManager.Options options, ContainerKiller killer) {
    this.runtime = deps.runtime();
    this.images = deps.images();
    this.recorder = deps.reports().recorder();
    this.clock = deps.clock();
    this.crashBackoff = deps.crashBackoff();
    this.hostIp = options.hostIp();
    this.env = new EnvResolver(deps.objects(), options.node().allocatable());
    this.node = options.node();
    this.hooks = deps.hooks();
    this.killer = killer;
    this.timelines = deps.reports().timelines();
  }

  /** Where a container goes: its sandbox, the pod's status, its volumes and the pod's IP. */
  record Placement(
      String sandboxId, PodStatus status, Map<String, Path> volumePaths, Supplier<String> podIp) {}

  /**
   * Starts one container; empty on success, or why it did not start. Its start is a phase of the
   * pod's timeline after its image is there: an app container's ends once started (with its
   * postStart hook), an init container's when it exits ({@code sync.PodSync} sees that).
   */
  Optional<StartFailure> start(Pod pod, Container c, boolean init, Placement at) {
    ObjectReference ref = Refs.container(pod, c.getName(), init);
    PodTimelines.Span span = PodTimelines.Span.NONE;
    try {
      checkCrashLoop(pod, c, at.status(), ref);
      images.ensure(pod, c, ref);
      span =
          timelines.begin(
              pod.getMetadata().getUid(),
              init ? Phase.INIT_CONTAINER : Phase.CONTAINER,
              c.getName());
      String id = createAndStart(pod, c, init, at, ref);
      runPostStart(pod, c, init, id, at.podIp(), ref);
      if (!init) {
        span.end();
      }
      return Optional.empty();
    } catch (StartException f) {
      span.fail(f.reason() + ": " + f.getMessage());
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
      return Optional.of(f.failure());
    } catch (RuntimeError e) {
      span.fail(e.getMessage());
      recorder.eventf(ref, EventType.Warning, Reasons.FAILED, "Error: %s", e.getMessage());
      return Optional.of(new StartFailure(WaitingReasons.RUN_CONTAINER_ERROR, e.getMessage()));
    }
  }

  /**
   * The crash-loop backoff key: pod, container and spec hash, as upstream's {@code getStableKey}.
   */
  static String backoffKey(Pod pod, Container c) {
    return pod.getMetadata().getUid() + "/" + c.getName() + "/" + ContainerHash.of(c);
  }

  /** When the container last finished, or now when the runtime does not say. */
  Instant finishedAt(ContainerStatus s) {
    return s.finishedAt() != null ? s.finishedAt() : clock.instant();
  }

  /** Refuses to restart a container that exited within its backoff; else moves the backoff on. */
  private void checkCrashLoop(Pod pod, Container c, PodStatus status, ObjectReference ref)
      throws StartException {
    Optional<ContainerStatus> lastExit =
        status.containers().stream()
            .filter(s -> s.name().equals(c.getName()) && s.exited())
            .findFirst();
    if (lastExit.isEmpty()) {
      return;
    }
    String key = backoffKey(pod, c);
    Instant finished = finishedAt(lastExit.get());
    if (crashBackoff.isInBackOffSince(key, finished)) {
      recorder.event(
          ref, EventType.Warning, Reasons.BACK_OFF, "Back-off restarting failed container");
      throw new StartException(
          WaitingReasons.CRASH_LOOP_BACK_OFF,
          String.format(
              "back-off %s restarting failed container=%s pod=%s_%s(%s)",
              Durations.format(crashBackoff.get(key)),
              c.getName(),
              pod.getMetadata().getName(),
              pod.getMetadata().getNamespace(),
              pod.getMetadata().getUid()));
    }
    crashBackoff.next(key, finished);
  }

  private String createAndStart(
      Pod pod, Container c, boolean init, Placement at, ObjectReference ref) throws StartException {
    int restartCount = at.status().latest(c.getName()).map(s -> s.restartCount() + 1).orElse(0);
    List<EnvVar> vars = environment(pod, c, at.podIp());
    ContainerConfig config =
        Configs.container(
            pod,
            c,
            init,
            new Configs.Instance(
                at.sandboxId(),
                restartCount,
                at.volumePaths(),
                vars,
                security(pod, c),
                kubeletMounts(pod, c, at.podIp()),
                node.cgroupParent().apply(pod)));
    // upstream's qos.GetContainerOOMScoreAdjust, over the node's memory
    config =
        config.withResources(
            config
                .linux()
                .resources()
                .withOomScoreAdj(OomScoreAdj.container(pod, c, node.allocatable().memoryBytes())));
    String id;
    try {
      id = runtime.createContainer(at.sandboxId(), config);
    } catch (RuntimeError e) {
      if (e.kind() == RuntimeError.Kind.NOT_FOUND) {
        images.forget(c.getImage()); // removed since we looked: the next sync pulls it again
      }
      recorder.eventf(ref, EventType.Warning, Reasons.FAILED, "Error: %s", e.getMessage());
      throw new StartException(WaitingReasons.CREATE_CONTAINER_ERROR, e.getMessage());
    }
    recorder.eventf(ref, EventType.Normal, Reasons.CREATED, "Created container %s", c.getName());
    try {
      runtime.startContainer(id);
    } catch (RuntimeError e) {
      recorder.eventf(ref, EventType.Warning, Reasons.FAILED, "Error: %s", e.getMessage());
      throw new StartException(WaitingReasons.RUN_CONTAINER_ERROR, e.getMessage());
    }
    recorder.eventf(ref, EventType.Normal, Reasons.STARTED, "Started container %s", c.getName());
    return id;
  }

  /**
   * The container's security context; {@code runAsNonRoot} is checked against the image's user. The
   * image is asked only when its user matters (upstream always asks): with {@code runAsNonRoot} or
   * {@code runAsGroup} and no {@code runAsUser}. An image that cannot be inspected, or a root user,
   * is a CreateContainerConfigError.
   */
  private ContainerConfig.Security security(Pod pod, Container c) throws StartException {
    var sc = SecurityContexts.effective(pod, c);
    SecurityContexts.ImageUser user = SecurityContexts.ImageUser.UNKNOWN;
    if (sc.getRunAsUser() == null
        && (Boolean.TRUE.equals(sc.getRunAsNonRoot()) || sc.getRunAsGroup() != null)) {
      try {
        user = SecurityContexts.ImageUser.parse(runtime.imageUser(c.getImage()));
      } catch (RuntimeError e) {
        throw new StartException(WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR, e.getMessage());
      }
    }
    SecurityContexts.verifyRunAsNonRoot(pod, c, user);
    return SecurityContexts.container(pod, c, user, node.seccompRoot());
  }

  /**
   * The files the kubelet mounts into the container: its termination log, and the pod's managed
   * /etc/hosts (upstream's {@code makeMounts}: once the pod has an IP, unless the container mounts
   * its own /etc/hosts).
   */
  private List<ContainerConfig.Mount> kubeletMounts(Pod pod, Container c, Supplier<String> podIp)
      throws StartException {
    List<ContainerConfig.Mount> mounts = new ArrayList<>();
    Path log = TerminationLogs.create(node, pod, c);
    if (log != null) {
      mounts.add(
          new ContainerConfig.Mount(
              log.toString(),
              c.getTerminationMessagePath(),
              false,
              ContainerConfig.Propagation.PRIVATE));
    }
    String ip = podIp.get();
    boolean ownHosts =
        c.getVolumeMounts() != null
            && c.getVolumeMounts().stream()
                .anyMatch(m -> HostsFile.CONTAINER_PATH.equals(m.getMountPath()));
    if (ip != null && !ip.isEmpty() && !ownHosts) {
      try {
        Path hosts =
            HostsFile.ensure(
                node.podDir(pod.getMetadata().getUid()),
                pod,
                List.of(ip),
                PodHostname.of(pod, node.dns().clusterDomain()),
                Path.of(HostsFile.CONTAINER_PATH));
        mounts.add(
            new ContainerConfig.Mount(
                hosts.toString(),
                HostsFile.CONTAINER_PATH,
                false,
                ContainerConfig.Propagation.PRIVATE));
      } catch (java.io.IOException | IllegalArgumentException e) {
        throw new StartException(
            WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR,
            "cannot write the pod's hosts file: " + e.getMessage());
      }
    }
    return mounts;
  }

  /** The container's environment; a source that fails is a CreateContainerConfigError. */
  private List<EnvVar> environment(Pod pod, Container c, Supplier<String> podIp)
      throws StartException {
    EnvResolver.Resolved resolved;
    Supplier<List<String>> ips =
        () -> {
          String ip = podIp.get();
          return ip == null || ip.isEmpty() ? List.of() : List.of(ip);
        };
    try {
      resolved = env.resolve(pod, c, new DownwardApi.Addresses(ips, hostIp.get()));
    } catch (EnvException e) {
      throw new StartException(WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR, e.getMessage());
    }
    for (String warning : resolved.warnings()) {
      recorder.event(
          Refs.pod(pod), EventType.Warning, Reasons.INVALID_ENVIRONMENT_VARIABLE_NAMES, warning);
    }
    return resolved.env();
  }

  /** Runs the postStart hook; if it fails, kills the container and reports PostStartHookError. */
  private void runPostStart(
      Pod pod, Container c, boolean init, String id, Supplier<String> podIp, ObjectReference ref)
      throws StartException {
    if (c.getLifecycle() == null || c.getLifecycle().getPostStart() == null) {
      return;
    }
    String ip = podIp.get();
    Optional<String> failed =
        hooks.run(pod, c, id, ip, c.getLifecycle().getPostStart(), POST_START_TIMEOUT);
    if (failed.isPresent()) {
      recorder.event(ref, EventType.Warning, Reasons.FAILED_POST_START_HOOK, failed.get());
      killer.killContainer(
          pod,
          new ContainerKiller.Target(c.getName(), id, init, ip),
          ContainerKiller.gracePeriod(pod, null, Map.of()),
          "FailedPostStartHook");
      throw new StartException(WaitingReasons.POST_START_HOOK_ERROR, failed.get());
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
}
