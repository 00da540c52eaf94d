package io.jkubelet.agent.kuberuntime;

import java.time.Duration;
import java.util.List;

/**
 * What a runtime sync of one pod did.
 *
 * @param changed whether it called the runtime to change anything
 * @param starts one entry per container it tried to start
 * @param requeueAfter when the pod needs another sync (a backoff ends), or null
 */
public record PodSyncResult(boolean changed, List<StartResult> starts, Duration requeueAfter) {

  /** A sync that found nothing to do. */
  public static final PodSyncResult NOOP = new PodSyncResult(false, List.of(), null);

  public PodSyncResult {
    starts = List.copyOf(starts);
  }

  /** A container start: failure is null when it started. */
  public record StartResult(String container, boolean init, StartFailure failure) {}

  /** Whether any start failed. */
  public boolean anyFailed() {
    return starts.stream().anyMatch(s -> s.failure() != null);
  }
}
