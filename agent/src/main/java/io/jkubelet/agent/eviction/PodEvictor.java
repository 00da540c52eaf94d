package io.jkubelet.agent.eviction;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Occurrence;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.config.EvictionSettings.Threshold;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upstream's {@code evictPod}: the pod Failed with reason {@code Evicted} and the message, a
 * Warning {@code Evicted} event, and the kill within the grace period the threshold allows.
 *
 * <p>Thread-safety: the manager's thread only (its parts are thread-safe).
 */
final class PodEvictor {
  private static final Logger log = LoggerFactory.getLogger(PodEvictor.class);

  private final long maxPodGracePeriodSeconds;
  private final EvictionManager.Parts parts;

  PodEvictor(long maxPodGracePeriodSeconds, EvictionManager.Parts parts) {
    this.maxPodGracePeriodSeconds = maxPodGracePeriodSeconds;
    this.parts = parts;
  }

  /**
   * For a threshold: upstream's message and annotations, naming the containers over request.
   * Returns the grace period of the kill, in seconds.
   */
  long evict(Pod pod, Threshold threshold, String resource, PodUsage usage) {
    long own =
        pod.getSpec().getTerminationGracePeriodSeconds() == null
            ? 30
            : pod.getSpec().getTerminationGracePeriodSeconds();
    // Hard: at once. Soft: the pod's own grace period, at most the maximum (kubernetes#64530).
    // A maximum of 0 (the default) sets none: the pod's own (upstream kills with 0, then 2 s).
    long max = maxPodGracePeriodSeconds;
    long grace = threshold.hard() ? 0 : max > 0 ? Math.min(own, max) : own;
    kill(
        pod,
        grace,
        Ranking.message(resource, pod, usage),
        Ranking.annotations(resource, pod, usage));
    return grace;
  }

  /** Upstream's {@code evictPod}: the pod Failed with reason Evicted, an event, and the kill. */
  void kill(Pod pod, long grace, String message, Map<String, String> annotations) {
    log.warn(
        "Eviction manager: evicting pod {}/{} with a grace period of {} s: {}",
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        grace,
        message);
    parts
        .recorder()
        .emit(
            new Occurrence(
                Refs.pod(pod),
                null,
                annotations,
                EventType.Warning,
                DefaultEvictionManager.REASON,
                message));
    PodStatus current = parts.pods().status().apply(pod).orElse(null);
    PodStatus failed =
        (current == null ? new PodStatusBuilder() : new PodStatusBuilder(current))
            .withPhase("Failed")
            .withReason(DefaultEvictionManager.REASON)
            .withMessage(message)
            .build();
    try {
      parts.pods().killer().kill(pod, failed, Duration.ofSeconds(grace));
    } catch (RuntimeException e) {
      log.error(
          "Eviction manager: killing pod {} failed: {}", pod.getMetadata().getName(), e.toString());
    }
  }
}
