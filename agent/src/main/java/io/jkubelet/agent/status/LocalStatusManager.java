package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps statuses in memory only: the status manager of standalone mode, where nobody but the
 * read-only server asks. Thread-safe.
 */
public final class LocalStatusManager implements StatusManager {
  private final Map<String, PodStatus> statuses = new ConcurrentHashMap<>();

  @Override
  public Optional<PodStatus> getPodStatus(String uid) {
    return Optional.ofNullable(statuses.get(uid));
  }

  @Override
  public void setPodStatus(Pod pod, PodStatus status) {
    statuses.put(pod.getMetadata().getUid(), status);
  }

  @Override
  public void removeOrphanedStatuses(Set<String> keep) {
    statuses.keySet().retainAll(keep);
  }

  @Override
  public void start() {}

  @Override
  public void stop() {}

  @Override
  public Health healthy() {
    return Health.OK;
  }
}
