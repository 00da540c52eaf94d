package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.config.Nullable;
import java.time.Duration;
import java.util.Map;

/**
 * What one status sync of a pod works on: its {@link Turn} from the {@link StatusSyncQueue} and the
 * cached status it writes ({@link ApiStatusWriter#sync}).
 *
 * @param semantic the kubelet-owned part of {@code status} (see {@link StatusPatches#semantic})
 */
record SyncAttempt(
    String uid, Pod pod, PodStatus status, Map<String, Object> semantic, SyncAttempt.Turn turn) {
  /**
   * One pod's turn, handed out by {@link StatusSyncQueue#take}.
   *
   * @param attempt 1, or one more than the failed attempts in a row before it
   * @param nextRetry when this attempt fails, the delay before the next
   * @param keptTerminal whether an earlier sync already kept the API's terminal phase (and said so)
   * @param written the semantic status the API was last seen to hold (written or confirmed), null
   *     when none was
   */
  record Turn(
      int attempt,
      Duration nextRetry,
      boolean keptTerminal,
      @Nullable Map<String, Object> written) {}

  int attempt() {
    return turn.attempt();
  }

  Duration nextRetry() {
    return turn.nextRetry();
  }
}
