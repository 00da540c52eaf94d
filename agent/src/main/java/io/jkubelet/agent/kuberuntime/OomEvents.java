package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.oom.KernelKill;
import io.jkubelet.agent.oom.MemoryCounters;
import io.jkubelet.agent.oom.OomSource;
import io.jkubelet.agent.pod.PodSpecs;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.config.Records;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.ToLongBiFunction;

/**
 * What the OOM killer killed in a pod's containers, told as events and counted.
 *
 * <ul>
 *   <li>A container that exited because of its memory limit gets a Warning {@code OOMKilled}, once
 *       per kill. The upstream kubelet emits none (kubernetes#69676): users see the kill only as
 *       {@code lastState.terminated.reason}. It names the process killed and whether it was the
 *       container's main process, and the memory used against the limit.
 *   <li>A process killed while the container's main process runs on gets a Warning {@code
 *       OOMKilling}: upstream says nothing then (kubernetes#78973), and neither does the status.
 *   <li>Each kill counts in {@link #kills()}, {@code kubelet_container_oom_kills_total}.
 * </ul>
 *
 * <p>The kills are read from the {@link OomSource}: the cgroup's {@code oom_kill} counter finds a
 * kill in a running container, and the kernel log names the process. They are looked at on the
 * pod's syncs (this is called with each status the pod sync makes), and a kill the kernel log
 * reports syncs its pod at once ({@link Watch#resync}): no thread of its own, no polling per
 * container. The main process is asked of the runtime only when a kill is found in a running
 * container.
 *
 * <p>A kill is reported if it happened after this agent started: a restarted agent does not report
 * old kills again (a kill while it was down shows only in the status).
 *
 * <p>Bounded by the pods and their containers: a pod's state is pruned, at each observation, to the
 * containers its status still lists (the runtime keeps one dead container per name), and a pod is
 * forgotten when it is removed or the runtime has none of its containers left (its counts, and so
 * its series of the metric, go with it). Thread-safe: the per-pod state is guarded by its own
 * monitor.
 */
public final class OomEvents {

  /**
   * Where the kills are read, and how a pod is synced again.
   *
   * @param source the cgroups' counters and the kernel log
   * @param mainPid a running container's main process as the runtime tells it now, 0 when it no
   *     longer runs ({@link #mainPidOf})
   * @param resync syncs the pod with this uid soon
   */
  public record Watch(
      OomSource source, ToLongBiFunction<PodRef, String> mainPid, Consumer<String> resync) {
    /** Nothing read: only the exits the runtime reports as {@code OOMKilled}. */
    public static final Watch NONE = new Watch(OomSource.NONE, (pod, id) -> 0, uid -> {});

    public Watch {
      Records.requireNonNull(Watch.class, source, mainPid, resync);
    }
  }

  /**
   * A container's main process read again from the runtime: the {@link ContainerStatus#pid} of a
   * fresh status of that container alone (the status a sync began with may be a moment old).
   */
  public static ToLongBiFunction<PodRef, String> mainPidOf(Runtime runtime) {
    return (pod, id) ->
        runtime.podStatus(pod, List.of(id)).containers().stream()
            .filter(c -> c.id().equals(id))
            .mapToLong(ContainerStatus::pid)
            .findFirst()
            .orElse(0);
  }

  /** One container's count of kills, for {@code kubelet_container_oom_kills_total}. */
  public record Count(String namespace, String pod, String container, long kills) {}

  private final EventRecorder recorder;
  private final Instant startedAt;
  private final Watch watch;

  /** Per pod uid. */
  private final Map<String, PodOoms> pods = new ConcurrentHashMap<>();

  public OomEvents(EventRecorder recorder, Instant startedAt, Watch watch) {
    this.recorder = recorder;
    this.startedAt = startedAt;
    this.watch = watch;
    watch.source().onKill(this::kernelKill);
  }

  /** One pod's state; guarded by itself. */
  private static final class PodOoms {
    final String namespace;
    final String name;

    /** Exited containers whose kill was reported. */
    final Set<String> reported = new HashSet<>();

    /** Running containers: the cgroup's {@code oom_kill} counted so far, by container id. */
    final Map<String, Long> counted = new HashMap<>();

    /**
     * Containers whose kill has no kernel record yet, waiting one sync for it: a running one's
     * count then, -1 for an exited one.
     */
    final Map<String, Long> deferred = new HashMap<>();

    /** The main process of a container found with a kill, by container id. */
    final Map<String, Long> mainPids = new HashMap<>();

    /** Kills taken for a running container that turned out to be exiting, by container id. */
    final Map<String, List<KernelKill>> held = new HashMap<>();

    /** Kills so far, by container name. */
    final Map<String, Long> kills = new HashMap<>();

    PodOoms(String namespace, String name) {
      this.namespace = namespace;
      this.name = name;
    }

    /** Nothing to keep: the counts go too once the runtime has none of the pod's containers. */
    boolean empty(boolean anyListed) {
      return reported.isEmpty()
          && counted.isEmpty()
          && deferred.isEmpty()
          && (kills.isEmpty() || !anyListed);
    }
  }

  public void observe(Pod pod, PodStatus status) {
    String uid = pod.getMetadata().getUid();
    PodOoms known = pods.get(uid);
    boolean watched = false;
    for (ContainerStatus c : status.containers()) {
      watched |= c.running() || (c.exited() && "OOMKilled".equals(c.reason()));
    }
    if (known == null && !watched) {
      return;
    }
    PodOoms p =
        pods.computeIfAbsent(
            uid, k -> new PodOoms(pod.getMetadata().getNamespace(), pod.getMetadata().getName()));
    synchronized (p) {
      Set<String> listed = new HashSet<>();
      status.containers().forEach(c -> listed.add(c.id()));
      p.reported.retainAll(listed); // those gone from the runtime are never seen again
      p.counted.keySet().retainAll(listed);
      p.deferred.keySet().retainAll(listed);
      p.mainPids.keySet().retainAll(listed);
      p.held.keySet().retainAll(listed);
      for (ContainerStatus c : status.containers()) {
        if (c.running()) {
          running(pod, status.pod(), p, c);
        } else if (c.exited() && "OOMKilled".equals(c.reason())) {
          exited(pod, p, c);
        }
      }
      p.counted.keySet().removeIf(id -> !running(status, id));
      if (p.empty(!listed.isEmpty())) {
        pods.remove(uid, p);
      }
    }
  }

  private static boolean running(PodStatus status, String id) {
    return status.containers().stream().anyMatch(c -> c.id().equals(id) && c.running());
  }

  /** A running container: a kill counted by its cgroup since the last look is a child's. */
  private void running(Pod pod, PodRef ref, PodOoms p, ContainerStatus c) {
    String uid = pod.getMetadata().getUid();
    Optional<MemoryCounters> m = watch.source().counters(uid, c.id());
    if (m.isEmpty()) {
      return;
    }
    long now = m.get().oomKills();
    Long before = p.counted.get(c.id());
    if (before == null) {
      // A container started since this agent did counts from zero; an older one from now on.
      boolean fresh = c.startedAt() != null && !c.startedAt().isBefore(startedAt);
      before = fresh ? 0L : now;
      if (!fresh) {
        watch.source().takeKills(c.id()); // reported by nobody: before this agent's time
      }
      p.counted.put(c.id(), before);
    }
    if (now <= before) {
      return;
    }
    List<KernelKill> kills = watch.source().takeKills(c.id());
    String logMissing = watch.source().kernelLogMissing().orElse(null);
    if (kills.isEmpty()
        && logMissing == null
        && !Long.valueOf(now).equals(p.deferred.get(c.id()))) {
      p.deferred.put(c.id(), now); // the kernel log's reader is a moment behind: its kill syncs us
      return;
    }
    long main = watch.mainPid().applyAsLong(ref, c.id());
    if (main <= 0 || kills.stream().anyMatch(k -> k.pid() == main)) {
      // The container is exiting (the engine may still say it runs, with the pid the kernel just
      // killed): its exit reports the kill. The source gives each kill once.
      p.held.computeIfAbsent(c.id(), k -> new ArrayList<>()).addAll(kills);
      return;
    }
    p.deferred.remove(c.id());
    p.mainPids.put(c.id(), main);
    p.counted.put(c.id(), now);
    long count = now - before;
    p.kills.merge(c.name(), count, Long::sum);
    boolean init = init(pod, c.name());
    String memory = OomWords.memory(m, kills.isEmpty() ? null : kills.getLast(), logMissing);
    String survives = "the container's main process (pid " + main + ") runs on";
    if (kills.isEmpty()) {
      recorder.eventf(
          Refs.container(pod, c.name(), init),
          EventType.Warning,
          Reasons.OOM_KILLING,
          "%s of container %s killed by the OOM killer; %s; %s; not known: the process killed (pid"
              + " and command), as %s",
          count == 1 ? "A process" : count + " processes",
          c.name(),
          survives,
          memory,
          logMissing == null ? "the kernel log has no record of it" : logMissing);
      return;
    }
    for (KernelKill k : kills) {
      recorder.eventf(
          Refs.container(pod, c.name(), init),
          EventType.Warning,
          Reasons.OOM_KILLING,
          "%s of container %s was killed by the OOM killer, not the container's main process;"
              + " %s; %s",
          capitalized(OomWords.process(k)),
          c.name(),
          survives,
          memory);
    }
  }

  /** An exited container whose exit the runtime calls {@code OOMKilled}. */
  private void exited(Pod pod, PodOoms p, ContainerStatus c) {
    if (c.finishedAt() != null && c.finishedAt().isBefore(startedAt)) {
      return;
    }
    if (p.reported.contains(c.id())) {
      return;
    }
    String uid = pod.getMetadata().getUid();
    List<KernelKill> kills = new ArrayList<>(p.held.getOrDefault(c.id(), List.of()));
    p.held.remove(c.id());
    kills.addAll(watch.source().takeKills(c.id()));
    String logMissing = watch.source().kernelLogMissing().orElse(null);
    if (kills.isEmpty() && logMissing == null && p.deferred.putIfAbsent(c.id(), -1L) == null) {
      return; // the kernel log's reader is a moment behind: its kill syncs us
    }
    p.deferred.remove(c.id());
    p.reported.add(c.id());
    Optional<MemoryCounters> m = watch.source().counters(uid, c.id());
    KernelKill last = kills.isEmpty() ? null : kills.getLast();
    Long main = p.mainPids.get(c.id());
    boolean init = init(pod, c.name());
    String what;
    if (last == null) {
      what =
          "not known: the process killed (pid and command) and whether it was the main process, as "
              + (logMissing == null ? "the kernel log has no record of it" : logMissing);
    } else if (c.exitCode() == 137 && (main == null || main == last.pid())) {
      what = "the OOM killer killed " + OomWords.process(last) + ", the container's main process";
    } else {
      what =
          "the OOM killer killed "
              + OomWords.process(last)
              + ", not the container's main process, which then exited with code "
              + c.exitCode();
    }
    for (KernelKill k : kills.subList(0, Math.max(0, kills.size() - 1))) {
      recorder.eventf(
          Refs.container(pod, c.name(), init),
          EventType.Warning,
          Reasons.OOM_KILLING,
          "%s of container %s was killed by the OOM killer, not the container's main process",
          capitalized(OomWords.process(k)),
          c.name());
    }
    p.kills.merge(c.name(), Math.max(1L, kills.size()), Long::sum);
    recorder.eventf(
        Refs.container(pod, c.name(), init),
        EventType.Warning,
        Reasons.OOM_KILLED,
        "Container %s was killed for exceeding its memory limit of %s (restart count %d): %s; %s",
        c.name(),
        memoryLimit(pod, c.name()),
        c.restartCount(),
        what,
        OomWords.memory(m, last, logMissing));
  }

  /** A kill the kernel log reported: sync the pod of its container, if it is one of ours. */
  private void kernelKill(KernelKill kill) {
    for (Map.Entry<String, PodOoms> e : pods.entrySet()) {
      PodOoms p = e.getValue();
      boolean ours;
      synchronized (p) {
        ours =
            p.counted.keySet().stream().anyMatch(kill::inContainer)
                || p.deferred.keySet().stream().anyMatch(kill::inContainer);
      }
      if (ours) {
        watch.resync().accept(e.getKey());
        return;
      }
    }
  }

  /** The kills so far of each container of the pods this agent has; for the metric. */
  public List<Count> kills() {
    List<Count> out = new ArrayList<>();
    for (PodOoms p : pods.values()) {
      synchronized (p) {
        p.kills.forEach((name, n) -> out.add(new Count(p.namespace, p.name, name, n)));
      }
    }
    return out;
  }

  /** How many pods have state here; for {@code jkubelet_cache_entries}. */
  public int size() {
    return pods.size();
  }

  /** The container ids remembered as reported for the pod; for tests. */
  Set<String> remembered(String uid) {
    PodOoms p = pods.get(uid);
    if (p == null) {
      return Set.of();
    }
    synchronized (p) {
      return Set.copyOf(p.reported);
    }
  }

  /** Forgets a pod that is gone. */
  public void forget(String uid) {
    pods.remove(uid);
  }

  private static boolean init(Pod pod, String name) {
    return PodSpecs.initContainers(pod).stream().anyMatch(s -> s.getName().equals(name));
  }

  private static String capitalized(String s) {
    return Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }

  private static String memoryLimit(Pod pod, String container) {
    for (Container c : pod.getSpec().getContainers()) {
      if (c.getName().equals(container)) {
        return limit(c);
      }
    }
    for (Container c : PodSpecs.initContainers(pod)) {
      if (c.getName().equals(container)) {
        return limit(c);
      }
    }
    return "unknown";
  }

  private static String limit(Container c) {
    Quantity q =
        c.getResources() == null || c.getResources().getLimits() == null
            ? null
            : c.getResources().getLimits().get("memory");
    return q == null ? "none (the node ran out of memory)" : q.toString();
  }
}
