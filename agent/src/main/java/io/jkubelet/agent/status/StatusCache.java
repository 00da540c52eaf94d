package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.pod.PodPhases;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.util.Guard;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The latest status of every pod and the rules a new status must follow, as the cache half of
 * upstream's {@code status.Manager} ({@code updateStatusInternal} in {@code status_manager.go}).
 * Both status managers keep their statuses here, so standalone and cluster mode report the same
 * status for the same pod.
 *
 * <p>The rules, applied by {@link #set} against the pod's previous status:
 *
 * <ul>
 *   <li>a status that would move a terminated container back to a non-terminal state is dropped
 *       (upstream's {@code checkContainerStateTransition}, see {@link #illegalTransition});
 *   <li>a terminal phase (Succeeded, Failed) is kept when a later status says otherwise;
 *   <li>the start time, once set, never changes.
 * </ul>
 *
 * <p>Every accepted status gets a version, increasing across the whole cache, so a caller that
 * hands accepted statuses on from several threads can tell which one is the latest.
 *
 * <p>Thread-safe: {@code guard} guards {@code entries} and {@code version}. Statuses are copied on
 * the way in and out, so nobody shares a mutable status with the cache.
 */
final class StatusCache {
  private static final Logger log = LoggerFactory.getLogger(StatusCache.class);

  /**
   * A pod's accepted status.
   *
   * @param pod the pod as it was last handed in with a status
   * @param status the status after the rules; NOTE: shared, callers must not change it
   * @param version increases with every status the cache accepts
   */
  record Cached(Pod pod, PodStatus status, long version) {}

  private final Guard guard = new Guard();
  private final Map<String, Cached> entries = new HashMap<>();
  private long version;

  /**
   * Records the pod's new status after applying the rules.
   *
   * @return what was recorded, or empty when the status was dropped (the previous one stays)
   */
  Optional<Cached> set(Pod pod, PodStatus status) {
    String uid = Objects.requireNonNull(pod.getMetadata().getUid(), "pod without a uid");
    PodStatus next = new PodStatusBuilder(status).build();
    String restartPolicy = pod.getSpec() == null ? null : pod.getSpec().getRestartPolicy();
    return guard.get(
        () -> {
          Cached old = entries.get(uid);
          if (old != null && !applyRules(pod, old.status(), next, restartPolicy)) {
            return Optional.empty();
          }
          Cached cached = new Cached(pod, next, ++version);
          entries.put(uid, cached);
          return Optional.of(cached);
        });
  }

  /** The pod's accepted status and its version, if any. */
  Optional<Cached> get(String uid) {
    return guard.get(() -> Optional.ofNullable(entries.get(uid)));
  }

  /** A copy of the pod's latest status, if any. */
  Optional<PodStatus> status(String uid) {
    return get(uid).map(c -> new PodStatusBuilder(c.status()).build());
  }

  int size() {
    return guard.get(entries::size);
  }

  /** Forgets pods other than these. */
  void retainAll(Set<String> keep) {
    guard.run(() -> entries.keySet().retainAll(keep));
  }

  /**
   * Applies the rules to {@code next} (in place) given the previous status.
   *
   * @return false when {@code next} must be dropped
   */
  private static boolean applyRules(Pod pod, PodStatus old, PodStatus next, String restartPolicy) {
    String illegal = illegalTransition(old, next, restartPolicy);
    if (illegal != null) {
      log.error("StatusManager: status update of {} dropped: {}", PodConfig.fullName(pod), illegal);
      return false;
    }
    if (PodPhases.isTerminal(old.getPhase()) && !old.getPhase().equals(next.getPhase())) {
      log.warn(
          "StatusManager: {} is {}, keeping that phase instead of {}",
          PodConfig.fullName(pod),
          old.getPhase(),
          next.getPhase());
      next.setPhase(old.getPhase());
    }
    if (old.getStartTime() != null) {
      next.setStartTime(old.getStartTime()); // the start time never changes
    }
    return true;
  }

  /**
   * Upstream's {@code checkContainerStateTransition}: unless the pod restarts always, a terminated
   * container never leaves the terminated state (under {@code OnFailure}, only a failed one may).
   *
   * @return why the transition is illegal, or null when it is fine
   */
  static String illegalTransition(PodStatus old, PodStatus next, String restartPolicy) {
    if ("Always".equals(restartPolicy) || old == null || old.getContainerStatuses() == null) {
      return null;
    }
    for (var o : old.getContainerStatuses()) {
      var terminated = o.getState() == null ? null : o.getState().getTerminated();
      if (terminated == null) {
        continue;
      }
      Integer code = terminated.getExitCode();
      if (code != null && code != 0 && "OnFailure".equals(restartPolicy)) {
        continue;
      }
      for (var n : next.getContainerStatuses()) {
        if (o.getName().equals(n.getName())
            && (n.getState() == null || n.getState().getTerminated() == null)) {
          return "terminated container "
              + n.getName()
              + " attempted illegal transition to non-terminal state";
        }
      }
    }
    return null;
  }
}
