package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.lifecycle.HookRunner;
import io.jkubelet.agent.pod.PodSpecs;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.SandboxStatus;
import io.jkubelet.config.Records;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Stops containers as upstream's {@code killContainer} and {@code killPodWithSyncResult}: the
 * Killing event, the preStop hook within the grace period, then SIGTERM and SIGKILL; a pod's
 * containers in parallel, then its sandboxes.
 *
 * <p>Thread-safe: it keeps no state of its own (the preStop hooks running are in {@link
 * PreStopsRunning}, thread-safe); pod workers call it for different pods at once.
 */
record ContainerKiller(
    Runtime runtime,
    EventRecorder recorder,
    Clock clock,
    ExecutorService parallel,
    HookRunner hooks,
    PreStopsRunning preStops) {
  public ContainerKiller {
    Records.requireNonNull(
        ContainerKiller.class, runtime, recorder, clock, parallel, hooks, preStops);
  }

  /** The pause container exits on SIGTERM; this only bounds a broken one. */
  private static final Duration SANDBOX_GRACE = Duration.ofSeconds(10);

  /** How much longer than the grace period a stop may take before it counts as exceeded. */
  static final Duration EXCEEDED_GRACE_SLACK = Duration.ofSeconds(5);

  /** A container to kill: its name, runtime id, kind, and its pod's IP (for an HTTP preStop). */
  record Target(String name, String id, boolean init, String podIp) {
    static Target of(ContainerStatus c, PodStatus status) {
      return new Target(
          c.name(), c.id(), "init".equals(c.labels().get(Labels.CONTAINER_KIND)), status.ip());
    }
  }

  /**
   * Stops every running container of the pod, in parallel, each with the grace period; then the
   * sandboxes; with {@code remove}, removes them all afterwards.
   *
   * @return what failed, empty when everything stopped
   */
  List<String> killPod(Pod pod, PodStatus status, Duration graceOverride, boolean remove) {
    List<Future<?>> kills = new ArrayList<>();
    for (ContainerStatus c : status.containers()) {
      if (c.running() || c.state() == ContainerState.UNKNOWN) {
        Duration grace = gracePeriod(pod, graceOverride, c.labels());
        String message = "Stopping container " + c.name();
        kills.add(submit(pod, Target.of(c, status), grace, message));
      }
    }
    List<String> errors = await(kills);
    for (SandboxStatus s : status.sandboxes()) {
      if (s.ready()) {
        attempt(
            errors, "stop sandbox " + s.id(), () -> runtime.stopPodSandbox(s.id(), SANDBOX_GRACE));
      }
    }
    if (remove) {
      for (ContainerStatus c : status.containers()) {
        attempt(errors, "remove container " + c.name(), () -> runtime.removeContainer(c.id()));
      }
      for (SandboxStatus s : status.sandboxes()) {
        attempt(errors, "remove sandbox " + s.id(), () -> runtime.removePodSandbox(s.id()));
      }
    }
    return errors;
  }

  /**
   * Stops the given containers in parallel, each with its message.
   *
   * @return what failed, empty when everything stopped
   */
  List<String> killContainers(Pod pod, PodStatus status, Map<String, PodActions.KillInfo> toKill) {
    List<Future<?>> kills = new ArrayList<>();
    for (ContainerStatus c : status.containers()) {
      PodActions.KillInfo info = toKill.get(c.id());
      if (info != null) {
        Duration grace = gracePeriod(pod, null, c.labels());
        kills.add(submit(pod, Target.of(c, status), grace, info.message()));
      }
    }
    return await(kills);
  }

  /**
   * Kills one container: the Killing event, the preStop hook (within the grace period, whose rest
   * is then the stop's grace, never under {@link RuntimeManager#MIN_GRACE}), then SIGTERM and
   * SIGKILL after the grace period. A failed preStop hook is a Warning {@code FailedPreStopHook},
   * and the kill goes on.
   */
  void killContainer(Pod pod, Target c, Duration grace, String message) {
    var ref = Refs.container(pod, c.name(), c.init());
    recorder.event(ref, EventType.Normal, Reasons.KILLING, message);
    Instant start = clock.instant();
    Container spec = spec(pod, c.name(), c.init());
    if (spec != null && spec.getLifecycle() != null && spec.getLifecycle().getPreStop() != null) {
      long hook = preStops.begin(pod.getMetadata().getUid(), c.name());
      try {
        hooks
            .run(pod, spec, c.id(), c.podIp(), spec.getLifecycle().getPreStop(), grace)
            .ifPresent(
                msg -> recorder.event(ref, EventType.Warning, Reasons.FAILED_PRE_STOP_HOOK, msg));
      } finally {
        preStops.end(hook);
      }
      Duration left = grace.minus(Duration.between(start, clock.instant()));
      grace = left.compareTo(RuntimeManager.MIN_GRACE) < 0 ? RuntimeManager.MIN_GRACE : left;
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

  /**
   * The grace period for stopping a container: the override, else the pod's deletion or termination
   * grace period, else (for an orphan known only from the runtime) the one recorded on the
   * container; never under {@link RuntimeManager#MIN_GRACE}, but for an override of zero (a hard
   * eviction, a forced deletion), which is SIGKILL at once. NOTE: upstream gives even those 2 s
   * ({@code minimumGracePeriodInSeconds}); a pod evicted for memory then holds it 2 s longer, and
   * the kernel's OOM killer may act first.
   */
  static Duration gracePeriod(Pod pod, Duration override, Map<String, String> labels) {
    Duration d;
    if (override != null && override.isZero()) {
      return Duration.ZERO;
    }
    if (override != null) {
      d = override;
    } else if (pod.getMetadata().getDeletionGracePeriodSeconds() != null) {
      d = Duration.ofSeconds(pod.getMetadata().getDeletionGracePeriodSeconds());
    } else if (pod.getSpec() != null && pod.getSpec().getTerminationGracePeriodSeconds() != null) {
      d = Duration.ofSeconds(pod.getSpec().getTerminationGracePeriodSeconds());
    } else {
      d = Duration.ofSeconds(Labels.intLabel(labels, Labels.TERMINATION_GRACE_PERIOD, 30));
    }
    return d.compareTo(RuntimeManager.MIN_GRACE) < 0 ? RuntimeManager.MIN_GRACE : d;
  }

  private Future<?> submit(Pod pod, Target target, Duration grace, String message) {
    return parallel.submit(
        () -> {
          killContainer(pod, target, grace, message);
          return null;
        });
  }

  /** Runs one runtime call, adding "what: why" to {@code errors} when it fails. */
  private static void attempt(List<String> errors, String what, Runnable call) {
    try {
      call.run();
    } catch (RuntimeError e) {
      errors.add(what + ": " + e.getMessage());
    }
  }

  /** The container's spec in the pod, or null (a pod made from labels has none). */
  private static Container spec(Pod pod, String name, boolean init) {
    if (pod.getSpec() == null) {
      return null;
    }
    List<Container> list = init ? PodSpecs.initContainers(pod) : pod.getSpec().getContainers();
    if (list == null) {
      return null;
    }
    return list.stream().filter(x -> name.equals(x.getName())).findFirst().orElse(null);
  }

  private static List<String> await(List<Future<?>> futures) {
    List<String> errors = new ArrayList<>();
    for (Future<?> f : futures) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        errors.add("interrupted");
        return errors;
      } catch (ExecutionException e) {
        errors.add(e.getCause().getMessage());
      }
    }
    return errors;
  }
}
