package io.jkubelet.agent.admission;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.pod.PodPhases;
import io.jkubelet.agent.status.StatusGenerator;
import io.jkubelet.agent.status.StatusManager;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits pods as upstream's {@code canAdmitPod}, or rejects them: a rejected pod's phase becomes
 * Failed, with an upstream-style reason ({@code SysctlForbidden}, then {@code OutOfpods}, {@code
 * OutOfcpu}, {@code OutOfmemory}, in upstream's order of admit handlers) and message, a Warning
 * event, and its containers never start. Rejected pods are remembered by UID until they are
 * removed.
 *
 * <p>Thread-safe: the rejected set is concurrent; the sync loop admits, and the pod workers and
 * housekeeping ask.
 */
public final class PodAdmitter {
  private static final Logger log = LoggerFactory.getLogger(PodAdmitter.class);

  private final Admission.Allocatable allocatable;
  private final StatusManager statuses;
  private final EventRecorder recorder;
  private final Clock clock;
  private final Sysctls sysctls;
  private final Set<String> rejected = ConcurrentHashMap.newKeySet();
  private final Handler first;

  /**
   * An admit handler that runs before the others, as upstream's eviction admit handler: empty to go
   * on, else the rejection's reason and message.
   */
  public interface Handler {
    /** Why the pod is refused, or empty. */
    Optional<Refusal> admit(Pod pod);
  }

  /** A handler's refusal: the status reason and message (the message is prefixed "Pod "). */
  public record Refusal(String reason, String message) {}

  /**
   * @param milliCpu the node's allocatable cpu, in millicores
   * @param memoryBytes the node's allocatable memory
   * @param maxPods the most pods the node runs
   * @param sysctls the sysctls pods may set: the safe ones and the node's allowed unsafe ones
   * @param first runs before every other check (the eviction manager's, under node pressure)
   */
  public PodAdmitter(
      long milliCpu,
      long memoryBytes,
      int maxPods,
      StatusManager statuses,
      EventRecorder recorder,
      Clock clock,
      Sysctls sysctls,
      Handler first) {
    this.first = first;
    this.allocatable = new Admission.Allocatable(milliCpu, memoryBytes, maxPods);
    this.statuses = statuses;
    this.recorder = recorder;
    this.clock = clock;
    this.sysctls = sysctls;
  }

  /**
   * Admits the pod against the desired pods that are admitted and not finished, or rejects it.
   *
   * @param desired every desired pod (the pod itself and rejected or terminal ones are skipped)
   * @return whether the pod was admitted
   */
  public boolean admit(Pod pod, Collection<Pod> desired) {
    Optional<Refusal> refused = first.admit(pod);
    if (refused.isPresent()) {
      reject(pod, new Admission.Rejection(refused.get().reason(), refused.get().message()));
      return false;
    }
    Optional<String> forbidden = sysctls.forbidden(pod);
    if (forbidden.isPresent()) {
      reject(pod, new Admission.Rejection(Sysctls.FORBIDDEN_REASON, forbidden.get()));
      return false;
    }
    List<Pod> admitted =
        desired.stream()
            .filter(p -> !p.getMetadata().getUid().equals(pod.getMetadata().getUid()))
            .filter(p -> !isRejected(p))
            .filter(p -> !isTerminal(p))
            .toList();
    Optional<Admission.Rejection> rejection = Admission.admit(pod, admitted, allocatable);
    if (rejection.isEmpty()) {
      return true;
    }
    reject(pod, rejection.get());
    return false;
  }

  /** Whether the pod was rejected at admission. */
  public boolean isRejected(Pod pod) {
    return rejected.contains(pod.getMetadata().getUid());
  }

  /** How many pods are remembered as rejected; for {@code jkubelet_cache_entries}. */
  public int rejectedCount() {
    return rejected.size();
  }

  /** Forgets a removed pod. */
  public void forget(String uid) {
    rejected.remove(uid);
  }

  private void reject(Pod pod, Admission.Rejection r) {
    rejected.add(pod.getMetadata().getUid());
    recorder.event(Refs.pod(pod), EventType.Warning, r.reason(), r.message());
    log.warn(
        "Admission: rejected pod {}/{}: {}",
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        r.message());
    statuses.setPodStatus(
        pod,
        new PodStatusBuilder()
            .withPhase("Failed")
            .withReason(r.reason())
            .withMessage("Pod " + r.message())
            .withStartTime(StatusGenerator.time(clock.instant()))
            .build());
  }

  private boolean isTerminal(Pod p) {
    return statuses
        .getPodStatus(p.getMetadata().getUid())
        .map(s -> PodPhases.isTerminal(s.getPhase()))
        .orElse(false);
  }
}
