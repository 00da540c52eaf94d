package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.util.Lifecycle;

/**
 * Keeps statuses in memory only: the status manager of standalone mode, where nobody but the
 * read-only server asks. Statuses go through the same {@link StatusCache} rules as in cluster mode
 * (a terminal phase is kept, a terminated container never comes back, the start time never
 * changes), so both modes report the same status for the same pod. Thread-safe, as the cache.
 */
public final class LocalStatusManager extends CachedStatusManager implements Lifecycle.Idle {

  @Override
  public void setPodStatus(Pod pod, PodStatus status) {
    cache.set(pod, status);
  }
}
