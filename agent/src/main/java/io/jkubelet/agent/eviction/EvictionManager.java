package io.jkubelet.agent.eviction;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.gc.ContainerGarbageCollector;
import io.jkubelet.agent.gc.ImageGarbageCollector;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.EvictionSettings.Signal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Keeps the node out of resource starvation, as upstream's eviction manager: it reads the signals,
 * reports the pressure conditions, reclaims disk through garbage collection and, when that is not
 * enough, evicts one ranked pod at a time; it refuses pods under pressure.
 *
 * <p>Unlike upstream's 10 s poll, the memory signals are read every 100 ms and every signal each
 * second, and a signal is read again just before a pod is evicted for it.
 */
public interface EvictionManager extends Lifecycle {

  /** The pressure conditions that are True: {@code MemoryPressure}, {@code DiskPressure}... */
  Set<String> nodeConditions();

  /**
   * Upstream's eviction admit handler: empty to admit the pod, else why not (the message of a
   * rejection with reason {@code Evicted}).
   */
  Optional<String> admit(Pod pod);

  /** Kills an evicted pod. */
  interface PodKiller {
    /**
     * Sets the pod's status to {@code failed} and kills its containers within {@code grace};
     * returns at once, the kill runs on the pod's worker.
     */
    void kill(Pod pod, PodStatus failed, Duration grace);
  }

  /** What the metrics record. Called on the manager's thread; must not block. */
  interface Listener {
    Listener NONE =
        new Listener() {
          @Override
          public void evicted(String signal) {}

          @Override
          public void statsAge(Signal signal, double seconds) {}
        };

    /**
     * A pod was evicted for {@code signal} ({@code kubelet_evictions}): a threshold's signal by
     * upstream's name, or one of upstream's local storage limits ({@code emptydirfs.limit}, {@code
     * ephemeralpodfs.limit}, {@code ephemeralcontainerfs.limit}).
     */
    void evicted(String signal);

    /** The age of the reading an eviction acted on ({@code kubelet_eviction_stats_age_seconds}). */
    void statsAge(Signal signal, double seconds);
  }

  /**
   * What the manager works with.
   *
   * @param signals reads the node's signals
   * @param usage reads the pods' usage, for ranking
   * @param dedicatedImageFs whether the engine's images and layers are on another file system than
   *     the root dir, asked at each decision (the engine's root may be learnt late)
   * @param pods the pods it ranks and evicts
   * @param reclaim what disk is freed through before a pod is evicted
   */
  record Parts(
      String nodeName,
      Readers.SignalReader signals,
      Readers.PodUsageReader usage,
      java.util.function.BooleanSupplier dedicatedImageFs,
      Pods pods,
      Reclaim reclaim,
      EventRecorder recorder,
      Listener listener) {}

  /**
   * The pods the manager ranks and evicts.
   *
   * @param activePods the pods that have not finished
   * @param cleanedUp whether a pod runs nothing (no ready sandbox, no running container): an
   *     evicted pod has stopped; an active one uses nothing
   * @param status the pod's current status, to keep its container statuses when it fails
   * @param killer kills an evicted pod
   */
  record Pods(
      Supplier<List<Pod>> activePods,
      Predicate<Pod> cleanedUp,
      java.util.function.Function<Pod, Optional<PodStatus>> status,
      PodKiller killer) {}

  /** The garbage collectors disk is reclaimed through, dead containers first, then images. */
  record Reclaim(ContainerGarbageCollector containerGc, ImageGarbageCollector imageGc) {}

  /** A manager that starts nothing until {@link #start()}. */
  static EvictionManager create(EvictionOptions options, Parts parts, Time time) {
    return new DefaultEvictionManager(options, parts, time.clock(), time.schedulers());
  }
}
