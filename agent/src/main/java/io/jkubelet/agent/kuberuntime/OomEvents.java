package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodStatus;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Emits a Warning {@code OOMKilled} event, once per kill, when a container is killed for exceeding
 * its memory limit. The upstream kubelet emits none (kubernetes#69676): users see the kill only as
 * {@code lastState.terminated.reason} and miss it in {@code kubectl describe}.
 *
 * <p>A kill is reported the first time a sync sees it, if it happened after this agent started: a
 * restarted agent does not report old kills again (a kill while it was down shows only in the
 * status). Thread-safe.
 */
public final class OomEvents {
  private final EventRecorder recorder;
  private final Instant startedAt;

  /** Container ids already reported, per pod UID. */
  private final Map<String, Set<String>> reported = new ConcurrentHashMap<>();

  public OomEvents(EventRecorder recorder, Instant startedAt) {
    this.recorder = recorder;
    this.startedAt = startedAt;
  }

  public void observe(Pod pod, PodStatus status) {
    for (ContainerStatus c : status.containers()) {
      if (!c.exited() || !"OOMKilled".equals(c.reason())) {
        continue;
      }
      if (c.finishedAt() != null && c.finishedAt().isBefore(startedAt)) {
        continue;
      }
      Set<String> seen =
          reported.computeIfAbsent(pod.getMetadata().getUid(), k -> ConcurrentHashMap.newKeySet());
      if (!seen.add(c.id())) {
        continue;
      }
      boolean init = Actions.inits(pod).stream().anyMatch(s -> s.getName().equals(c.name()));
      recorder.eventf(
          Refs.container(pod, c.name(), init),
          EventType.Warning,
          Reasons.OOM_KILLED,
          "Container %s was killed for exceeding its memory limit of %s (restart count %d)",
          c.name(),
          memoryLimit(pod, c.name()),
          c.restartCount());
    }
  }

  /** Forgets a pod that is gone. */
  public void forget(String uid) {
    reported.remove(uid);
  }

  private static String memoryLimit(Pod pod, String container) {
    for (Container c : pod.getSpec().getContainers()) {
      if (c.getName().equals(container)) {
        return limit(c);
      }
    }
    for (Container c : Actions.inits(pod)) {
      if (c.getName().equals(container)) {
        return limit(c);
      }
    }
    return "unknown";
  }

  private static String limit(Container c) {
    Quantity q =
        c.getResources() == null || c.getResources().getLimits() == null
            ? null
            : c.getResources().getLimits().get("memory");
    return q == null ? "none (the node ran out of memory)" : q.toString();
  }
}
