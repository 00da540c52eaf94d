package io.jkubelet.agent.metrics;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.podconfig.Annotations;
import io.jkubelet.agent.workers.PodSyncFn;
import io.jkubelet.agent.workers.SyncResult;
import io.jkubelet.agent.workers.UpdatePodOptions;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A {@link PodSyncFn} that times each sync of the one it wraps, as upstream's pod workers do:
 * {@code kubelet_pod_worker_duration_seconds} by {@code operation_type} (create, update, sync,
 * kill), and {@code kubelet_pod_start_duration_seconds} from the pod's first sighting ({@code
 * kubernetes.io/config.seen}) to the sync after which its phase first reads Running, having read
 * Pending or nothing before.
 *
 * <p>Thread-safe if the wrapped function is; each worker calls it for its own pod.
 */
public final class InstrumentedPodSync implements PodSyncFn {
  private final PodSyncFn delegate;
  private final KubeletMetrics metrics;
  private final Function<String, Optional<PodStatus>> statuses;
  private final Clock clock;

  /**
   * @param statuses the pod's status as last generated, by UID (the status manager's)
   */
  public InstrumentedPodSync(
      PodSyncFn delegate,
      KubeletMetrics metrics,
      Function<String, Optional<PodStatus>> statuses,
      Clock clock) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.statuses = Objects.requireNonNull(statuses, "statuses");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public SyncResult sync(UpdatePodOptions work, Instant lastSyncTime) throws Exception {
    Instant start = clock.instant();
    String before = phase(work.uid());
    try {
      return delegate.sync(work, lastSyncTime);
    } finally {
      Instant end = clock.instant();
      metrics
          .podWorkerDuration
          .labelValues(work.type().name().toLowerCase(Locale.ROOT))
          .observe(KubeletMetrics.seconds(start, end));
      if ((before == null || "Pending".equals(before)) && "Running".equals(phase(work.uid()))) {
        firstSeen(work.pod())
            .ifPresent(seen -> metrics.podStartDuration.observe(KubeletMetrics.seconds(seen, end)));
      }
    }
  }

  private String phase(String uid) {
    return statuses.apply(uid).map(PodStatus::getPhase).orElse(null);
  }

  private static Optional<Instant> firstSeen(Pod pod) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    String seen = annotations == null ? null : annotations.get(Annotations.CONFIG_SEEN);
    if (seen == null || seen.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(seen));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
