package io.jkubelet.agent;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.eviction.EvictionManager;
import io.jkubelet.agent.eviction.EvictionOptions;
import io.jkubelet.agent.eviction.SummaryPodUsage;
import io.jkubelet.agent.eviction.SummarySignals;
import io.jkubelet.agent.gc.ContainerGarbageCollector;
import io.jkubelet.agent.gc.ImageGarbageCollector;
import io.jkubelet.agent.node.NodeInfo;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.stats.NodeReader;
import io.jkubelet.agent.stats.SummaryProvider;
import io.jkubelet.agent.status.StatusManager;
import io.jkubelet.agent.util.StatFs;
import io.jkubelet.agent.workers.PodWorkers;
import io.jkubelet.agent.workers.UpdatePodOptions;
import io.jkubelet.agent.workers.UpdatePodOptions.KillPodOptions;
import io.jkubelet.agent.workers.WorkType;
import io.jkubelet.config.CgroupSettings;
import io.jkubelet.config.EvictionSettings.Signal;
import io.jkubelet.config.KubeletConfiguration;
import io.jkubelet.config.ReservationSettings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Builds the agent's eviction manager from its configuration and the agent's parts: signals from
 * the node's reader that the stats summary reports (so the summary shows what eviction decided on),
 * the pods' usage from the stats summary, evictions through the status manager and a KILL to the
 * pod's worker. Builds only.
 */
public final class EvictionWiring {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(EvictionWiring.class);

  private EvictionWiring() {}

  /** The agent's parts the manager works with. */
  record AgentParts(
      Supplier<List<Pod>> activePods,
      PodCache cache,
      StatusManager statuses,
      PodWorkers workers,
      SummaryProvider summary,
      NodeReader node,
      Supplier<Path> imageFsDir,
      ContainerGarbageCollector containerGc,
      ImageGarbageCollector imageGc,
      EvictionManager.Listener listener) {}

  /** The reason of an evicted or refused pod's status. */
  static final String EVICTED = "Evicted";

  /**
   * No image garbage collection (it is off): the eviction manager's disk reclaim deletes no image.
   */
  public static final ImageGarbageCollector NO_IMAGE_GC = () -> 0L;

  /**
   * Upstream's {@code GetNodeAllocatableReservation}: for cpu, memory and ephemeral-storage, the
   * kube and system reservations plus the hard eviction threshold of {@code memory.available}
   * (memory) and {@code nodefs.available} (ephemeral-storage), percentages taken of the capacity.
   * Base units: thousandths of a core, bytes.
   */
  public static Map<String, Long> reservation(KubeletConfiguration config, NodeInfo machine) {
    ReservationSettings r = config.reservations();
    Map<String, Long> out = new LinkedHashMap<>();
    out.put("cpu", r.reserved("cpu"));
    long memory = r.reserved("memory");
    memory +=
        config
            .eviction()
            .hard(Signal.MEMORY_AVAILABLE)
            .map(t -> t.value().resolve(machine.memoryBytes()))
            .orElse(0L);
    out.put("memory", memory);
    long storage = r.reserved("ephemeral-storage");
    storage +=
        config
            .eviction()
            .hard(Signal.NODEFS_AVAILABLE)
            .map(t -> t.value().resolve(machine.ephemeralStorageBytes()))
            .orElse(0L);
    out.put("ephemeral-storage", storage);
    out.values().removeIf(v -> v == 0);
    return out;
  }

  /** Allocatable memory: capacity less the reservation and every hugepage size, at least 0. */
  static long allocatableMemory(NodeInfo machine, Map<String, Long> reservation) {
    long m = machine.memoryBytes() - reservation.getOrDefault("memory", 0L);
    for (long huge : machine.hugePages().values()) {
      m -= huge;
    }
    return Math.max(0, m);
  }

  /**
   * Whether the engine keeps images and layers on another file system than the root dir's
   * (upstream's {@code HasDedicatedImageFs}); false while the engine's root is unknown or
   * unreadable.
   */
  static boolean dedicatedImageFs(Path rootDir, Path engineRoot) {
    if (engineRoot == null) {
      return false;
    }
    try {
      return !StatFs.sameFileSystem(rootDir, engineRoot);
    } catch (java.io.IOException | RuntimeException e) {
      log.warn(
          "Eviction manager: cannot compare the file systems of {} and {}: {}",
          rootDir,
          engineRoot,
          e.toString());
      return false;
    }
  }

  static EvictionManager build(Setup setup, AgentParts a) {
    KubeletConfiguration config = setup.options().config();
    CgroupSettings cg = config.cgroups();
    boolean enforcePods = cg.cgroupsPerQOS() && cg.enforceNodeAllocatable().contains("pods");
    EvictionOptions options =
        EvictionOptions.of(
            config.eviction().thresholds(enforcePods),
            config.eviction().evictionPressureTransitionPeriod(),
            config.eviction().evictionMaxPodGracePeriod());
    var parts =
        new EvictionManager.Parts(
            setup.options().nodeName(),
            new SummarySignals(a.node()),
            new SummaryPodUsage(a.summary()),
            () -> dedicatedImageFs(setup.options().rootDir(), a.imageFsDir().get()),
            new EvictionManager.Pods(
                a.activePods(),
                pod ->
                    a.cache()
                        .get(pod.getMetadata().getUid())
                        .map(e -> !e.status().anyRunning())
                        .orElse(true),
                pod -> a.statuses().getPodStatus(pod.getMetadata().getUid()),
                (pod, failed, grace) -> {
                  a.statuses().setPodStatus(pod, failed);
                  a.workers()
                      .update(
                          new UpdatePodOptions(
                              pod,
                              WorkType.KILL,
                              new KillPodOptions(grace, false, "evicted", false)));
                }),
            new EvictionManager.Reclaim(a.containerGc(), a.imageGc()),
            setup.recorder(),
            a.listener());
    return EvictionManager.create(options, parts, setup.time());
  }
}
