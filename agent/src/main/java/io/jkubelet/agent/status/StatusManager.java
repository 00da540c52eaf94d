package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.util.Lifecycle;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;

/**
 * The latest API status of every pod, as upstream's {@code status.Manager}. Workers set it after
 * each sync; the read-only server and (in cluster mode) the API server are told from here.
 */
public interface StatusManager extends Lifecycle {
  Optional<PodStatus> getPodStatus(String uid);

  /** Records a pod's newly generated status. */
  void setPodStatus(Pod pod, PodStatus status);

  /** Forgets statuses of pods other than these. */
  void removeOrphanedStatuses(Set<String> keep);

  /**
   * Waits until the API server holds the latest status of each of these pods (by UID), at most
   * {@code timeout}; whether it does. Without an API server (standalone), true at once.
   */
  default boolean awaitWritten(Collection<String> uids, Duration timeout)
      throws InterruptedException {
    return true;
  }

  /** How many pods' statuses are kept: bounded by the pods, as orphans are forgotten. */
  int size();
}
