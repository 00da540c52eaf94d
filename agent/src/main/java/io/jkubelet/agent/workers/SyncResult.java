package io.jkubelet.agent.workers;

import java.time.Duration;
import java.time.Instant;

/**
 * What one sync of a pod achieved.
 *
 * @param statusObservedAt when the freshest runtime status that reflects this sync's actions was
 *     observed; the next sync needs a status at least this new
 * @param requeueAfter when to sync again (e.g. when a crash-loop backoff ends), or null for the
 *     periodic resync
 */
public record SyncResult(Instant statusObservedAt, Duration requeueAfter) {}
