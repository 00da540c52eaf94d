package io.jkubelet.agent.gc;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Container garbage collection with an operator's policy, as upstream's {@code containerGC} ({@code
 * kuberuntime_gc.go}): dead containers are grouped by (pod UID, container name); with every pod
 * source heard, the groups of deleted pods (and of terminated ones, for {@link
 * #deleteAllUnusedContainers()}) go entirely; each group keeps its newest {@code
 * maxPerPodContainer}; then, over {@code maxContainers}, every group is cut to an equal share (at
 * least one) and the oldest across the node go. Only containers older than {@code minAge} count.
 * Sandboxes that do not run and hold no container go, except each pod's newest while the pod
 * exists.
 *
 * <p>Where jkubelet differs: a pod a worker is busy with is skipped until the next run (its worker
 * reads the same containers); a container created but not started counts as dead only when no
 * worker is busy with its pod (upstream removes it, even while its start is on the way); sandboxes
 * of deleted pods wait, like their containers, for every source to be heard. Only containers with
 * jkubelet's labels are ever looked at ({@link Runtime#listContainers()}).
 *
 * <p>Thread-safe: a run holds this object's monitor, so housekeeping's runs and {@link
 * #deleteAllUnusedContainers()} take turns; the counts are atomic.
 */
final class RealContainerGc implements ContainerGc {
  private static final Logger log = LoggerFactory.getLogger(ContainerGc.class);

  /** The grace period an unknown-state container is stopped with before its removal. */
  static final Duration UNKNOWN_STOP_GRACE = Duration.ofSeconds(2);

  private final Deps deps;

  private final AtomicLong removedContainers = new AtomicLong();
  private final AtomicLong removedSandboxes = new AtomicLong();
  private final AtomicLong failedRemovals = new AtomicLong();

  private record Unit(String uid, String name) {}

  /**
   * What a collector works with.
   *
   * @param manager removes a pod's dead containers after a death; null where {@link
   *     #onContainerDied} is not called
   * @param pods what the collector knows of each pod
   * @param node the Node the {@code ContainerGCFailed} events are about
   */
  record Deps(
      Runtime runtime,
      @Nullable RuntimeManager manager,
      ContainerGcPolicy policy,
      PodStates pods,
      Clock clock,
      EventRecorder recorder,
      ObjectReference node) {
    Deps {
      Records.requireNonNull(Deps.class, runtime, policy, pods, clock, recorder, node);
    }
  }

  RealContainerGc(Deps deps) {
    this.deps = deps;
  }

  @Override
  public Stats stats() {
    return new Stats(removedContainers.get(), removedSandboxes.get(), failedRemovals.get());
  }

  /**
   * Upstream's {@code GarbageCollect}: the policy; terminated pods keep what it allows. A run the
   * runtime fails (its listing or an inspect) is logged and a {@code ContainerGCFailed} event on
   * the Node, as upstream's; a container that cannot be removed is only logged.
   */
  @Override
  public synchronized void garbageCollect() {
    try {
      collect(deps.policy(), false);
    } catch (RuntimeError e) {
      log.error("ContainerGC: container garbage collection failed: {}", e.getMessage());
      deps.recorder()
          .event(deps.node(), EventType.Warning, Reasons.CONTAINER_GC_FAILED, e.getMessage());
    }
  }

  /**
   * Upstream's evictNonDeletedPods path, and more: every dead container and sandbox of every pod,
   * whatever the policy's age and counts (upstream keeps applying them).
   */
  @Override
  public synchronized void deleteAllUnusedContainers() {
    log.info("ContainerGC: attempting to delete unused containers");
    collect(ContainerGcPolicy.ALL, true);
  }

  /**
   * After a container of a pod died (upstream's {@code podContainerDeletor}): its pod keeps the
   * newest {@link ContainerGcPolicy#keptOnDeath()} dead containers of each name. Returns how many
   * went.
   */
  @Override
  public int onContainerDied(PodStatus status) {
    int removed = deps.manager().removeDeadContainers(status, deps.policy().keptOnDeath());
    removedContainers.addAndGet(removed);
    return removed;
  }

  private void collect(ContainerGcPolicy p, boolean evictTerminated) {
    List<ContainerSummary> listed = deps.runtime().listContainers();
    evictContainers(listed, p, evictTerminated);
    evictSandboxes(listed, evictTerminated);
  }

  private boolean gone(String uid, boolean evictTerminated) {
    return deps.pods().deleted(uid) || (evictTerminated && deps.pods().terminated(uid));
  }

  private void evictContainers(
      List<ContainerSummary> listed, ContainerGcPolicy p, boolean evictTerminated) {
    Instant newest = deps.clock().instant().minus(p.minAge());
    Map<Unit, List<ContainerSummary>> units = new LinkedHashMap<>();
    for (ContainerSummary c : listed) {
      if (c.sandbox() || c.state() == ContainerState.RUNNING || c.createdAt().isAfter(newest)) {
        continue;
      }
      if (deps.pods().busy(c.pod().uid())) {
        continue;
      }
      units
          .computeIfAbsent(new Unit(c.pod().uid(), c.containerName()), k -> new ArrayList<>())
          .add(c);
    }
    if (deps.pods().allSourcesReady()) {
      units
          .entrySet()
          .removeIf(
              e -> {
                if (!gone(e.getKey().uid(), evictTerminated)) {
                  return false;
                }
                removeOldest(e.getValue(), e.getValue().size());
                return true;
              });
    }
    if (p.maxPerPodContainer() >= 0) {
      enforcePerUnit(units, p.maxPerPodContainer());
    }
    int total = count(units);
    if (p.maxContainers() >= 0 && total > p.maxContainers()) {
      enforcePerUnit(units, Math.max(p.maxContainers() / units.size(), 1));
      total = count(units);
      if (total > p.maxContainers()) {
        List<ContainerSummary> flat = new ArrayList<>();
        units.values().forEach(flat::addAll);
        removeOldest(flat, total - p.maxContainers());
      }
    }
  }

  private static int count(Map<Unit, List<ContainerSummary>> units) {
    return units.values().stream().mapToInt(List::size).sum();
  }

  private void enforcePerUnit(Map<Unit, List<ContainerSummary>> units, int max) {
    units.replaceAll((k, list) -> list.size() > max ? removeOldest(list, list.size() - max) : list);
  }

  /**
   * Removes the {@code n} oldest; returns the rest, newest first (assumed gone, as upstream). The
   * order breaks a tie of creation times by attempt, as Docker lists them in whole seconds and a
   * crash-looping container's first restart comes within the second: without it, a run could take a
   * pod's newest dead container and keep an older one (losing its restart count and last state;
   * upstream's sort by creation alone can).
   */
  private List<ContainerSummary> removeOldest(List<ContainerSummary> containers, int n) {
    List<ContainerSummary> sorted = new ArrayList<>(containers);
    sorted.sort(ContainerSummary.NEWEST_FIRST);
    int keep = sorted.size() - n;
    for (int i = sorted.size() - 1; i >= keep; i--) {
      ContainerSummary d = sorted.get(i);
      try {
        if (d.state() == ContainerState.UNKNOWN) {
          deps.runtime().stopContainer(d.id(), UNKNOWN_STOP_GRACE);
        }
        deps.runtime().removeContainer(d.id());
        removedContainers.incrementAndGet();
        log.debug("ContainerGC: removed dead container {} of pod {}", d.id(), d.pod());
      } catch (RuntimeError e) {
        failedRemovals.incrementAndGet();
        log.warn("ContainerGC: cannot remove container {}: {}", d.id(), e.getMessage());
      }
    }
    return new ArrayList<>(sorted.subList(0, Math.max(keep, 0)));
  }

  /**
   * Upstream's {@code evictSandboxes}: a sandbox that does not run and holds no container goes when
   * its pod is gone, or when it is not its pod's newest. Which containers a sandbox holds is read
   * from an inspect of the pods that have a sandbox to remove.
   */
  private void evictSandboxes(List<ContainerSummary> listed, boolean evictTerminated) {
    Map<String, List<ContainerSummary>> byPod = new HashMap<>();
    Map<String, PodRef> refs = new HashMap<>();
    for (ContainerSummary c : listed) {
      if (c.sandbox()) {
        byPod.computeIfAbsent(c.pod().uid(), k -> new ArrayList<>()).add(c);
        refs.put(c.pod().uid(), c.pod());
      }
    }
    boolean ready = deps.pods().allSourcesReady();
    byPod.forEach(
        (uid, sandboxes) -> {
          if (deps.pods().busy(uid)) {
            return;
          }
          boolean all = ready && gone(uid, evictTerminated);
          if (!all && sandboxes.size() < 2) {
            return;
          }
          sandboxes.sort(ContainerSummary.NEWEST_FIRST);
          Set<String> holding = new HashSet<>();
          try {
            for (ContainerStatus c : deps.runtime().podStatus(refs.get(uid)).containers()) {
              holding.add(c.sandboxId());
            }
          } catch (RuntimeError e) {
            log.warn("ContainerGC: cannot inspect pod {}: {}", refs.get(uid), e.getMessage());
            return;
          }
          for (int i = all ? 0 : 1; i < sandboxes.size(); i++) {
            ContainerSummary s = sandboxes.get(i);
            if (s.state() == ContainerState.RUNNING || holding.contains(s.id())) {
              continue;
            }
            try {
              deps.runtime().removePodSandbox(s.id());
              removedSandboxes.incrementAndGet();
              log.debug("ContainerGC: removed sandbox {} of pod {}", s.id(), refs.get(uid));
            } catch (RuntimeError e) {
              failedRemovals.incrementAndGet();
              log.warn("ContainerGC: cannot remove sandbox {}: {}", s.id(), e.getMessage());
            }
          }
        });
  }
}
