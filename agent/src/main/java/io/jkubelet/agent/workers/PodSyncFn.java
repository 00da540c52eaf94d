package io.jkubelet.agent.workers;

import java.time.Instant;

/**
 * Syncs one pod: upstream's {@code syncPodFn}. Implementations fetch a runtime status newer than
 * {@code lastSyncTime}, act on it, and report in the result what they saw last.
 */
@FunctionalInterface
public interface PodSyncFn {
  SyncResult sync(UpdatePodOptions work, Instant lastSyncTime) throws Exception;
}
