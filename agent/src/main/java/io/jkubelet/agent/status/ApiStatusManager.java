package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.TokenBucket;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the latest status of every pod and writes it to the API server, as upstream's {@code
 * status.Manager} ({@code pkg/kubelet/status/status_manager.go}). The status manager of cluster
 * mode; it puts together these parts:
 *
 * <ul>
 *   <li>the {@link StatusCache}, which applies the transition rules (the same as standalone mode);
 *   <li>the {@link StatusSyncQueue}, which knows which pods to write and when;
 *   <li>the {@link StatusSyncLoop}, the one sync thread;
 *   <li>the {@link ApiStatusWriter}, which talks to the API server (patch, mirror pods, delete);
 *   <li>the {@link StatusCounters} behind {@link #stats()}.
 * </ul>
 *
 * <p>{@link #setPodStatus} only records: it never blocks on the API server and never throws because
 * of it. A status that differs from the last one written (differences in {@code lastProbeTime}
 * aside) marks the pod dirty and wakes the sync thread, which writes it at once; several changes in
 * a row coalesce, and only the latest is sent. Every {@code syncPeriod} the thread re-checks every
 * pod as upstream's {@code needsReconcile} does: against the pod as the pod source last saw it (the
 * API source's informer; for a static pod, its mirror), without a request. Only a pod whose status
 * there differs from ours (someone else changed it, or an earlier write was lost), or which is
 * being deleted and may now go, is synced: a patch or a delete, as {@link ApiStatusWriter} says.
 *
 * <p>Failures are retried with a per-pod backoff of 1 s doubling up to {@code syncPeriod}. The
 * thread survives any exception, so while the API server is down statuses keep accumulating in
 * memory and converge when it returns. Every request spends a token of the rate budget.
 *
 * <p>NOTE: fabric8 retries failed requests on its own ({@code requestRetryBackoffLimit}, 10 by
 * default, with exponential backoff), which can stall the sync thread for minutes while the API
 * server is down; build the client with a small limit, since this class retries by itself.
 *
 * <p>Thread-safe, as each of its parts. The client is owned: {@link #stop()} closes it.
 */
public final class ApiStatusManager extends CachedStatusManager {
  private static final Logger log = LoggerFactory.getLogger(ApiStatusManager.class);
  private static final Duration FIRST_RETRY = Duration.ofSeconds(1);

  /** The re-check period of every pod, as upstream's status manager. */
  public static final Duration SYNC_PERIOD = Duration.ofSeconds(10);

  /**
   * Counters since start, for logs and tests.
   *
   * @param writes status patches that succeeded
   * @param skips syncs that wrote nothing: the API had our status, a static pod has no mirror yet,
   *     or the API's terminal phase was kept
   * @param conflicts requests answered 409, retried
   * @param failures other failed requests (including an unreachable server), retried
   * @param deletes pods deleted from the API server
   * @param forgotten pods that are gone from the API server (deleted, or replaced by a new pod of
   *     the same name), never written again
   * @param syncs periodic re-checks of all pods
   * @param pending pods with a status to write now
   */
  public record Stats(
      long writes,
      long skips,
      long conflicts,
      long failures,
      long deletes,
      long forgotten,
      long syncs,
      int pending) {}

  private final KubernetesClient client;
  private final Duration syncPeriod;
  private final StatusCounters counters = new StatusCounters();
  private final StatusSyncQueue queue;
  private final ApiStatusWriter writer;
  private final StatusSyncLoop loop;

  /**
   * @param client a client of its own, owned from now on, built with few or no request retries
   * @param qps the rate budget's refill, in requests per second
   * @param burst the rate budget's size
   * @param canBeDeleted whether a pod that is being deleted (it receives the API object, which has
   *     a deletionTimestamp) is finished on this node: stopped, and everything of it removed
   * @param seen the pod by UID as the pod source last saw it in the API (for a static pod, its
   *     mirror pod), empty when it has none; what the periodic re-check compares with
   * @param syncPeriod how often every pod is re-checked against the API (upstream: 10 s)
   */
  public ApiStatusManager(
      KubernetesClient client,
      Clock clock,
      int qps,
      int burst,
      Predicate<Pod> canBeDeleted,
      Function<String, Optional<Pod>> seen,
      Duration syncPeriod) {
    if (syncPeriod.isNegative() || syncPeriod.isZero()) {
      throw new IllegalArgumentException("the sync period must be positive, got " + syncPeriod);
    }
    this.client = Objects.requireNonNull(client, "client");
    this.syncPeriod = syncPeriod;
    Objects.requireNonNull(clock, "clock");
    Duration first = FIRST_RETRY.compareTo(syncPeriod) <= 0 ? FIRST_RETRY : syncPeriod;
    this.queue = new StatusSyncQueue(clock, syncPeriod, new Backoff.Policy(first, syncPeriod));
    this.writer =
        new ApiStatusWriter(
            new ApiStatusWriter.Deps(
                client,
                Objects.requireNonNull(seen, "seen"),
                new TokenBucket(clock, qps, burst),
                queue::pause,
                Objects.requireNonNull(canBeDeleted, "canBeDeleted"),
                counters));
    this.loop = new StatusSyncLoop(cache, queue, writer, counters, seen);
  }

  @Override
  public void start() {
    if (loop.start()) {
      log.info(
          "StatusManager: writing pod statuses to {} (re-check every {}s)",
          client.getMasterUrl(),
          syncPeriod.toSeconds());
    }
  }

  @Override
  public void stop() {
    if (!loop.stop()) {
      return;
    }
    client.close();
    Stats s = stats();
    log.info(
        "StatusManager: stopped after {} writes, {} skips, {} conflicts, {} failures, {} deletes",
        s.writes(),
        s.skips(),
        s.conflicts(),
        s.failures(),
        s.deletes());
  }

  @Override
  public Health healthy() {
    return loop.healthy();
  }

  public Stats stats() {
    return counters.snapshot(queue.pending());
  }

  /**
   * Records the pod's status after the {@link StatusCache} rules; never blocks on the API server. A
   * status the rules drop is never written.
   */
  @Override
  public void setPodStatus(Pod pod, PodStatus status) {
    // Asked outside any lock: it is the caller's code.
    boolean deletable = writer.deletable(pod);
    cache
        .set(pod, status)
        .ifPresent(
            c ->
                queue.changed(
                    pod.getMetadata().getUid(),
                    c.version(),
                    StatusPatches.semantic(c.status()),
                    deletable));
  }

  /** Waits on the sync queue: until none of these pods has a status left to write. */
  @Override
  public boolean awaitWritten(java.util.Collection<String> uids, Duration timeout)
      throws InterruptedException {
    return queue.awaitWritten(uids, timeout);
  }

  @Override
  public void removeOrphanedStatuses(Set<String> keep) {
    super.removeOrphanedStatuses(keep);
    queue.retainAll(keep);
  }
}
