package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.pod.PodSpecs;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodStatus;
import java.time.Instant;
import java.util.HashSet;
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
 * status).
 *
 * <p>Bounded by the pods and their containers: a pod's reported ids are pruned, at each
 * observation, to the containers its status still lists (the runtime keeps one dead container per
 * name), so a container that is OOM-killed in a loop does not add an id per restart for ever; and a
 * pod is forgotten when it is removed. Thread-safe.
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
    Set<String> known = reported.get(pod.getMetadata().getUid());
    if (known != null) {
      Set<String> listed = new HashSet<>();
      status.containers().forEach(c -> listed.add(c.id()));
      known.retainAll(listed); // those gone from the runtime are never seen again
      if (known.isEmpty()) {
        reported.remove(pod.getMetadata().getUid(), known);
      }
    }
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
      boolean init =
          PodSpecs.initContainers(pod).stream().anyMatch(s -> s.getName().equals(c.name()));
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

  /** How many pods have a reported kill; for {@code jkubelet_cache_entries}. */
  public int size() {
    return reported.size();
  }

  /** The container ids remembered as reported for the pod; for tests. */
  Set<String> remembered(String uid) {
    return Set.copyOf(reported.getOrDefault(uid, Set.of()));
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
    for (Container c : PodSpecs.initContainers(pod)) {
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
