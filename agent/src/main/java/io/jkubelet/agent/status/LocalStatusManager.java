package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.util.Lifecycle;
import java.util.Optional;
import java.util.Set;

/**
 * Keeps statuses in memory only: the status manager of standalone mode, where nobody but the
 * read-only server asks. Statuses go through the same {@link StatusCache} rules as in cluster mode
 * (a terminal phase is kept, a terminated container never comes back, the start time never
 * changes), so both modes report the same status for the same pod. Thread-safe, as the cache.
 */
public final class LocalStatusManager implements StatusManager, Lifecycle.Idle {
  private final StatusCache cache = new StatusCache();

  @Override
  public Optional<PodStatus> getPodStatus(String uid) {
    return cache.status(uid);
  }

  @Override
  public void setPodStatus(Pod pod, PodStatus status) {
    cache.set(pod, status);
  }

  @Override
  public int size() {
    return cache.size();
  }

  @Override
  public void removeOrphanedStatuses(Set<String> keep) {
    cache.retainAll(keep);
  }
}
