package io.jkubelet.agent.prober;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Warning {@code Unhealthy} events of probes, in upstream's words ({@code prober.go}): one for
 * each failed or errored attempt, and one for a definition that cannot run.
 *
 * <p>Thread-safe: the recorder is.
 */
final class UnhealthyEvents {
  private static final Logger log = LoggerFactory.getLogger(UnhealthyEvents.class);

  private final EventRecorder recorder;

  UnhealthyEvents(EventRecorder recorder) {
    this.recorder = recorder;
  }

  /** A probe of the container cannot run; logged at WARN as well, since it never will. */
  void invalid(Pod pod, String container, ProbeType type, String message) {
    log.warn(
        "ProbeManager: {} probe of container {} in pod {}/{} cannot run: {}",
        type.title(),
        container,
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        message);
    recorder.eventf(
        Refs.container(pod, container, false),
        EventType.Warning,
        Reasons.UNHEALTHY,
        "%s probe errored: %s",
        type.title(),
        message);
  }

  /** An attempt ran; only a failed or errored one is an event. */
  void attempted(Pod pod, ProbeWorker.Key key, ProbeOutcome outcome) {
    if (outcome.result() == ProbeResult.SUCCESS) {
      return;
    }
    recorder.eventf(
        Refs.container(pod, key.containerName(), false),
        EventType.Warning,
        Reasons.UNHEALTHY,
        "%s probe %s: %s",
        key.type().title(),
        outcome.result() == ProbeResult.FAILURE ? "failed" : "errored",
        outcome.output().stripTrailing());
  }
}
