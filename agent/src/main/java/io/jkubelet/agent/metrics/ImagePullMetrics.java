package io.jkubelet.agent.metrics;

import io.jkubelet.agent.kuberuntime.ImagePulls;
import java.time.Duration;

/**
 * Listens to the engine's image pulls: {@code kubelet_image_pull_duration_seconds} (each pull,
 * however it ended), {@code kubelet_image_pull_bytes_total} (bytes downloaded, as the progress
 * stream counts them) and {@code kubelet_image_pull_in_flight}. Upstream v1.20 has none of these;
 * the histogram has the buckets of newer upstream kubelets' of that name, without their image size
 * label.
 *
 * <p>Thread-safe: the client library's metrics are.
 */
public final class ImagePullMetrics implements ImagePulls.Listener {
  private final KubeletMetrics metrics;

  public ImagePullMetrics(KubeletMetrics metrics) {
    this.metrics = metrics;
    metrics.imagePullsInFlight.set(0);
  }

  @Override
  public void started() {
    metrics.imagePullsInFlight.inc();
  }

  @Override
  public void downloaded(long bytes) {
    metrics.imagePullBytes.inc(bytes);
  }

  @Override
  public void finished(Duration took, boolean succeeded) {
    metrics.imagePullsInFlight.dec();
    metrics.imagePullDuration.observe(Math.max(0, took.toNanos() / 1e9));
  }
}
