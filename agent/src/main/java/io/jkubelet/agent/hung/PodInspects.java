package io.jkubelet.agent.hung;

import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.SandboxStatus;
import io.jkubelet.agent.util.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A pod's inspect, container by container, for {@link GuardedRuntime}: each container's inspect is
 * {@link Deadlines#join joined} under its own bound, and one that hangs keeps its pod's last known
 * status for it, with a message that says which call hangs. It also knows, for a hung call's
 * report, which pod and container a container id belongs to ({@link #describe}).
 *
 * <p>Thread-safe. Bounded: {@code lastKnown} holds the pods of the last listing ({@link #listed}),
 * {@code owners} its containers.
 */
final class PodInspects {
  private final Runtime delegate;
  private final Deadlines deadlines;
  private final GuardedRuntime.Options options;

  /** The pod of each container of the last listing (and of inspects since), by container id. */
  private final Map<String, PodRef> owners = new ConcurrentHashMap<>();

  /** Each pod's last status, by UID: what a hung container's status is kept from. */
  private final Map<String, PodStatus> lastKnown = new ConcurrentHashMap<>();

  PodInspects(Runtime delegate, Deadlines deadlines, GuardedRuntime.Options options) {
    this.delegate = delegate;
    this.deadlines = deadlines;
    this.options = options;
  }

  /** The engine's listing of all containers: only its pods and containers are remembered. */
  void listed(List<ContainerSummary> listed) {
    Set<String> ids = new HashSet<>();
    Set<String> uids = new HashSet<>();
    for (ContainerSummary c : listed) {
      ids.add(c.id());
      uids.add(c.pod().uid());
      owners.put(c.id(), c.pod());
    }
    owners.keySet().retainAll(ids);
    lastKnown.keySet().retainAll(uids);
  }

  /**
   * The pod's status from its containers' inspects, each bounded on {@code scheduler}; with a null
   * scheduler (not started), one inspect on the caller's thread, unbounded.
   */
  PodStatus podStatus(Scheduler scheduler, PodRef pod, List<String> containerIds) {
    if (scheduler == null || containerIds.isEmpty()) {
      return remember(pod, delegate.podStatus(pod, containerIds));
    }
    PodStatus last = lastKnown.get(pod.uid());
    Map<String, CompletableFuture<PodStatus>> inspects = new LinkedHashMap<>();
    for (String id : new HashSet<>(containerIds)) {
      owners.putIfAbsent(id, pod);
      // A container with a last known state keeps it after the short bound; one without waits as
      // any call does: failing its pod's inspect sooner would only put off the pod's sync.
      Duration bound = known(last, id) ? options.inspectTimeout() : options.requestTimeout();
      inspects.put(
          id,
          deadlines.join(
              scheduler,
              new Deadlines.Call("ContainerStatus", id, ""),
              bound,
              this::describe,
              () -> delegate.podStatus(pod, List.of(id))));
    }
    List<SandboxStatus> sandboxes = new ArrayList<>();
    List<ContainerStatus> containers = new ArrayList<>();
    for (Map.Entry<String, CompletableFuture<PodStatus>> e : inspects.entrySet()) {
      String id = e.getKey();
      PodStatus one;
      try {
        one = Deadlines.await(e.getValue());
      } catch (RuntimeException ex) {
        if (!Deadlines.isHung(ex) || !keep(last, id, ex.getMessage(), sandboxes, containers)) {
          throw ex;
        }
        continue;
      }
      one.sandboxes().stream().filter(s -> s.id().equals(id)).forEach(sandboxes::add);
      one.containers().stream().filter(c -> c.id().equals(id)).forEach(containers::add);
    }
    return remember(pod, new PodStatus(pod, sandboxes, containers));
  }

  /** The hung call with its pod and container name, as far as they are known. */
  HungCall describe(Deadlines.Call call, Instant since, Duration bound) {
    PodRef pod = owners.get(call.containerId());
    String name = "";
    if (pod != null) {
      PodStatus last = lastKnown.get(pod.uid());
      if (last != null) {
        name =
            last.containers().stream()
                .filter(c -> c.id().equals(call.containerId()))
                .map(ContainerStatus::name)
                .findFirst()
                .orElse("");
      }
    }
    return new HungCall(call.name(), call.containerId(), call.subject(), pod, name, since, bound);
  }

  private static boolean known(PodStatus last, String id) {
    return last != null
        && (last.sandboxes().stream().anyMatch(s -> s.id().equals(id))
            || last.containers().stream().anyMatch(c -> c.id().equals(id)));
  }

  /**
   * Adds the container's last known status, with {@code why} as its message; false when there is
   * none.
   */
  private static boolean keep(
      PodStatus last,
      String id,
      String why,
      List<SandboxStatus> sandboxes,
      List<ContainerStatus> containers) {
    if (last == null) {
      return false;
    }
    for (SandboxStatus s : last.sandboxes()) {
      if (s.id().equals(id)) {
        sandboxes.add(s);
        return true;
      }
    }
    for (ContainerStatus c : last.containers()) {
      if (c.id().equals(id)) {
        containers.add(c.withMessage(why + "; its last known state is kept"));
        return true;
      }
    }
    return false;
  }

  private PodStatus remember(PodRef pod, PodStatus status) {
    if (status.sandboxes().isEmpty() && status.containers().isEmpty()) {
      lastKnown.remove(pod.uid());
    } else {
      lastKnown.put(pod.uid(), status);
    }
    return status;
  }
}
