package io.jkubelet.agent.pleg;

import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inspections of one relist's changed pods, for {@link GenericPleg}: each pod's status is
 * written to the {@link PodCache} (a worker waiting for that pod goes on at once), from the
 * containers that the relist's listing named. Several pods (all of them in the first relist after a
 * restart) are inspected {@link #PARALLELISM} at a time, on virtual threads that end with the call.
 * Holds no state of its own between relists.
 */
final class RelistInspects {
  private static final Logger log = LoggerFactory.getLogger(GenericPleg.class);

  /** How many changed pods one relist inspects at a time. */
  static final int PARALLELISM = 4;

  private final Runtime runtime;
  private final PodCache cache;

  RelistInspects(Runtime runtime, PodCache cache) {
    this.runtime = runtime;
    this.cache = cache;
  }

  /**
   * Inspects the changed pods that the cache has not observed since {@code timestamp}; returns the
   * UIDs of the pods that could not be inspected.
   *
   * @param idsByPod each pod's container ids in the relist's listing, by UID
   */
  Set<String> inspect(
      Collection<PodRef> changed, Map<String, List<String>> idsByPod, Instant timestamp) {
    List<PodRef> todo = changed.stream().filter(p -> !observedSince(p.uid(), timestamp)).toList();
    Set<String> failed = ConcurrentHashMap.newKeySet();
    if (todo.size() <= 1) {
      todo.forEach(pod -> inspect(pod, idsByPod, timestamp, failed));
      return failed;
    }
    Semaphore permits = new Semaphore(PARALLELISM);
    try (ExecutorService threads =
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("pleg-inspect").factory())) {
      for (PodRef pod : todo) {
        permits.acquireUninterruptibly();
        threads.execute(
            () -> {
              try {
                inspect(pod, idsByPod, timestamp, failed);
              } finally {
                permits.release();
              }
            });
      }
    } // waits for every inspection
    return failed;
  }

  /** Inspects the containers that the relist's listing named: no second listing per pod. */
  private void inspect(
      PodRef pod, Map<String, List<String>> idsByPod, Instant timestamp, Set<String> failed) {
    try {
      cache.set(
          pod,
          runtime.podStatus(pod, idsByPod.getOrDefault(pod.uid(), List.of())),
          null,
          timestamp);
    } catch (RuntimeException e) {
      log.warn("PLEG: cannot inspect pod {}: {}", pod, e.toString());
      cache.set(pod, PodStatus.empty(pod), e, timestamp);
      failed.add(pod.uid());
    }
  }

  /**
   * Whether the cache already holds an observation of the pod made after this relist listed the
   * runtime: a worker re-inspects its pod right after acting on it, and inspecting again here would
   * only add load on the engine while pods are starting.
   */
  private boolean observedSince(String uid, Instant listedAt) {
    return cache
        .get(uid)
        .map(e -> e.error() == null && e.modified().isAfter(listedAt))
        .orElse(false);
  }
}
