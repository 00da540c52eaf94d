package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.Optional;
import java.util.Set;

/**
 * What both status managers keep: the statuses in memory, after the {@link StatusCache} rules, so
 * that standalone and cluster mode report the same status for the same pod. Thread-safe, as the
 * cache.
 */
abstract class CachedStatusManager implements StatusManager {
  final StatusCache cache = new StatusCache();

  @Override
  public final Optional<PodStatus> getPodStatus(String uid) {
    return cache.status(uid);
  }

  @Override
  public final int size() {
    return cache.size();
  }

  @Override
  public void removeOrphanedStatuses(Set<String> keep) {
    cache.retainAll(keep);
  }
}
