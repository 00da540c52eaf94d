package io.jkubelet.agent.sync;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.pod.PodSpecs;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.timeline.Phase;
import io.jkubelet.agent.timeline.PodTimelines;

/**
 * What a sync sees of a pod's start that no runtime call marks: an init container's exit (from the
 * engine's finish time) and the pod's first Ready, which closes its timeline and records the Normal
 * {@code StartupTimeline} event with the total and the three longest phases.
 *
 * <p>Thread-safe: it keeps no state but its two collaborators; each pod's worker calls it for its
 * own pod.
 */
record StartupMarks(PodTimelines timelines, EventRecorder recorder) {

  /** Marks what the status just generated shows of the pod's start. */
  void observe(Pod pod, PodStatus runtime, io.fabric8.kubernetes.api.model.PodStatus api) {
    if (!timelines.enabled()) {
      return;
    }
    String uid = pod.getMetadata().getUid();
    for (Container c : PodSpecs.initContainers(pod)) {
      runtime
          .latest(c.getName())
          .filter(ContainerStatus::exited)
          .ifPresent(
              s ->
                  timelines.ended(
                      uid,
                      Phase.INIT_CONTAINER,
                      c.getName(),
                      s.finishedAt(),
                      s.exitCode() == 0 ? null : "exit code " + s.exitCode()));
    }
    if (isReady(api)) {
      timelines
          .ready(uid)
          .ifPresent(
              t ->
                  recorder.event(
                      Refs.pod(pod), EventType.Normal, Reasons.STARTUP_TIMELINE, t.summary()));
    }
  }

  private static boolean isReady(io.fabric8.kubernetes.api.model.PodStatus api) {
    if (api == null || api.getConditions() == null) {
      return false;
    }
    for (PodCondition c : api.getConditions()) {
      if ("Ready".equals(c.getType())) {
        return "True".equals(c.getStatus());
      }
    }
    return false;
  }
}
