package io.jkubelet.agent.metrics;

import io.jkubelet.agent.timeline.Phase;
import io.jkubelet.agent.timeline.PodTimelines;
import java.time.Duration;

/**
 * Listens to the pods' start-up timelines: {@code kubelet_pod_start_phase_duration_seconds{phase}},
 * each phase that ended well, beside upstream's {@code kubelet_pod_start_duration_seconds}. Not
 * upstream's; its buckets are upstream's {@code DefBuckets} with longer ones for pulls and init
 * containers.
 *
 * <p>Thread-safe: the client library's metrics are.
 */
public final class PodStartPhaseMetrics implements PodTimelines.Listener {
  private final KubeletMetrics metrics;

  public PodStartPhaseMetrics(KubeletMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public void phaseEnded(Phase phase, Duration took) {
    metrics
        .podStartPhaseDuration
        .labelValues(phase.metricLabel())
        .observe(Math.max(0, took.toNanos() / 1e9));
  }
}
