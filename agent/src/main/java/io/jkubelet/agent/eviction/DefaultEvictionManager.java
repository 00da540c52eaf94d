package io.jkubelet.agent.eviction;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.cm.QosClass;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.eviction.Readers.PodUsageReader;
import io.jkubelet.agent.util.Schedulers;
import io.jkubelet.config.EvictionSettings.Signal;
import io.jkubelet.config.EvictionSettings.Threshold;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The eviction manager, as upstream's {@code managerImpl.synchronize} (v1.20) but driven by a fast
 * read loop: {@link #tick()} every {@code memoryPeriod} reads the memory signals (every signal each
 * {@code fullPeriod}) and runs one iteration, {@link #runOnce}, which tests drive with hand-made
 * readings.
 *
 * <p>Why a read loop and not memcg threshold notifications: upstream's notifier registers an
 * eventfd with {@code cgroup.event_control}, which needs {@code eventfd(2)} and a blocking {@code
 * read(2)} on it, beyond what the JDK offers without native code. Reading {@code
 * memory.usage_in_bytes} and {@code memory.stat} costs tens of microseconds, so a 100 ms loop
 * reacts within a tenth of a second, where upstream waits up to its 10 s poll; and the signal is
 * read again just before a pod is evicted for it (kubernetes#51745).
 *
 * <p>A reading that makes no sense (negative, or more available than the capacity;
 * kubernetes#52386) is logged once and dropped, so no threshold is met on it.
 *
 * <p>Thread-safety: {@link #runOnce} and {@link #tick} run on the manager's thread (or a test's);
 * the conditions are published through a volatile field that any thread reads.
 */
final class DefaultEvictionManager implements EvictionManager {
  private static final Logger log = LoggerFactory.getLogger(DefaultEvictionManager.class);

  /** How long nothing is tried again after no pod could be evicted (upstream's poll period). */
  static final Duration QUIET_AFTER_FAILURE = Duration.ofSeconds(10);

  /** How old a disk measurement that ranks pods for a disk signal may be at most. */
  static final Duration FRESH_DISK = Duration.ofSeconds(5);

  /** Upstream's {@code Reason}. */
  static final String REASON = Reasons.EVICTED;

  private final EvictionOptions options;
  private final Parts parts;
  private final Clock clock;
  private final Schedulers schedulers;

  // Manager thread only.
  private Map<Threshold, Instant> thresholdsFirstObservedAt = Map.of();
  private Map<String, Instant> conditionsLastObservedAt = Map.of();
  private List<Threshold> thresholdsMet = List.of();
  private Map<Signal, Observation> lastObservations = Map.of();
  private final Map<Signal, Observation> readings = new EnumMap<>(Signal.class);
  private final Set<Signal> nonsenseLogged = EnumSet.noneOf(Signal.class);
  private final LocalStorageLimits localStorage = new LocalStorageLimits();
  private final PodEvictor evictor;
  private Instant lastFullRead;
  private Pod pending;
  private Instant pendingUntil;
  private Instant quietUntil = Instant.MIN;

  private volatile Set<String> conditions = Set.of();
  private volatile Instant lastTick;
  private volatile io.jkubelet.agent.util.Scheduler scheduler;

  DefaultEvictionManager(EvictionOptions options, Parts parts, Clock clock, Schedulers schedulers) {
    this.options = options;
    this.parts = parts;
    this.clock = clock;
    this.schedulers = schedulers;
    this.evictor = new PodEvictor(options.maxPodGracePeriodSeconds(), parts);
  }

  @Override
  public synchronized void start() {
    if (scheduler != null) {
      return;
    }
    if (options.thresholds().isEmpty()) {
      log.info("Eviction manager: no thresholds; only local storage limits are enforced");
    }
    log.info(
        "Eviction manager: memory signals every {} ms, all every {} ms; thresholds {}",
        options.memoryPeriod().toMillis(),
        options.fullPeriod().toMillis(),
        options.thresholds());
    lastTick = clock.instant();
    scheduler = schedulers.create("eviction-manager");
    scheduler.withFixedDelay(Duration.ZERO, options.memoryPeriod(), this::tick);
  }

  @Override
  public synchronized void stop() {
    if (scheduler != null) {
      scheduler.close();
      scheduler = null;
    }
  }

  @Override
  public Health healthy() {
    Instant t = lastTick;
    if (scheduler == null || t == null) {
      return Health.OK;
    }
    Duration since = Duration.between(t, clock.instant());
    return since.compareTo(options.fullPeriod().multipliedBy(10)) > 0
        ? Health.failing("eviction manager: no reading for " + since.toSeconds() + " s")
        : Health.OK;
  }

  @Override
  public Set<String> nodeConditions() {
    return conditions;
  }

  @Override
  public Optional<String> admit(Pod pod) {
    Set<String> now = conditions;
    if (now.isEmpty() || Ranking.critical(pod)) {
      return Optional.empty();
    }
    if (now.equals(Set.of(Thresholds.MEMORY_PRESSURE))
        && (QosClass.of(pod) != QosClass.BEST_EFFORT || Ranking.toleratesMemoryPressure(pod))) {
      return Optional.empty();
    }
    log.warn(
        "Eviction manager: failed to admit pod {}/{} - node has conditions: {}",
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        now);
    return Optional.of("The node had condition: [" + String.join(" ", now) + "]. ");
  }

  /** One turn of the loop: read, then run an iteration. */
  void tick() {
    Instant now = clock.instant();
    lastTick = now;
    boolean full =
        lastFullRead == null
            || Duration.between(lastFullRead, now).compareTo(options.fullPeriod()) >= 0;
    if (full) {
      lastFullRead = now;
    }
    if (!options.thresholds().isEmpty()) {
      runOnce(read(!full));
    }
    localStorage.check(
        now,
        parts.pods().activePods(),
        () -> readUsage(PodUsageReader.ANY_DISK_AGE),
        parts.dedicatedImageFs(),
        (pod, exceeded) -> {
          evictor.kill(pod, 0, exceeded.message(), Map.of());
          parts.listener().evicted(exceeded.signal());
        });
  }

  /**
   * Reads the signals and merges them into the last readings; a nonsensical reading is logged once
   * and removes its signal.
   */
  Map<Signal, Observation> read(boolean memoryOnly) {
    Map<Signal, Observation> fresh;
    try {
      fresh = parts.signals().read(memoryOnly);
    } catch (RuntimeException e) {
      log.warn("Eviction manager: cannot read the signals: {}", e.toString());
      return Map.copyOf(readings);
    }
    if (!memoryOnly) {
      readings.keySet().retainAll(fresh.keySet());
    }
    fresh.forEach(
        (signal, o) -> {
          Optional<String> bad = o.nonsense();
          if (bad.isPresent()) {
            if (nonsenseLogged.add(signal)) {
              log.error(
                  "Eviction manager: ignoring a nonsensical reading of {}: {}", signal, bad.get());
            }
            readings.remove(signal);
          } else {
            if (nonsenseLogged.remove(signal)) {
              log.info("Eviction manager: {} reads sensibly again", signal);
            }
            readings.put(signal, o);
          }
        });
    return Map.copyOf(readings);
  }

  /**
   * One iteration, as upstream's {@code synchronize}: the thresholds met, the node conditions, and,
   * when a threshold has been met for its grace period, reclaim and at most one eviction.
   *
   * @return the pod evicted, if one was
   */
  Optional<Pod> runOnce(Map<Signal, Observation> observations) {
    Instant now = clock.instant();
    List<Threshold> thresholds = Thresholds.met(options.thresholds(), observations, false);
    if (!thresholdsMet.isEmpty()) {
      thresholds = Thresholds.merge(thresholds, Thresholds.met(thresholdsMet, observations, true));
    }
    Map<Threshold, Instant> firstObservedAt =
        Thresholds.firstObservedAt(thresholds, thresholdsFirstObservedAt, now);
    Set<String> observed = Thresholds.conditions(thresholds);
    Map<String, Instant> lastObservedAt =
        Thresholds.conditionsLastObservedAt(observed, conditionsLastObservedAt, now);
    Set<String> nodeConditions =
        Thresholds.observedSince(lastObservedAt, options.pressureTransitionPeriod(), now);
    thresholds = Thresholds.metGracePeriod(firstObservedAt, now);
    if (!nodeConditions.equals(conditions)) {
      log.info("Eviction manager: node conditions now {}", nodeConditions);
    }
    // Kept in the node's order, for the admission message.
    conditions =
        java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet<>(nodeConditions));
    thresholdsFirstObservedAt = firstObservedAt;
    conditionsLastObservedAt = lastObservedAt;
    thresholdsMet = thresholds;
    thresholds = Thresholds.updatedStats(thresholds, observations, lastObservations);
    lastObservations = observations;
    if (thresholds.isEmpty() || waitingForCleanup(now) || now.isBefore(quietUntil)) {
      return Optional.empty();
    }
    Threshold threshold = Thresholds.byEvictionPriority(thresholds).get(0);
    if (!stillMet(threshold)) {
      return Optional.empty();
    }
    String resource = Thresholds.RESOURCE.get(threshold.signal());
    log.warn(
        "Eviction manager: attempting to reclaim {} ({}; observed {})",
        resource,
        threshold,
        Observation.describe(threshold.signal(), observations.get(threshold.signal())));
    parts
        .recorder()
        .event(
            Refs.node(parts.nodeName()),
            EventType.Warning,
            Reasons.EVICTION_THRESHOLD_MET,
            "Attempting to reclaim " + resource);
    if (reclaimNodeLevelResources(threshold)) {
      log.info("Eviction manager: able to reduce {} pressure without evicting pods", resource);
      return Optional.empty();
    }
    List<Pod> active = parts.pods().activePods().get();
    if (active.isEmpty()) {
      log.error("Eviction manager: eviction thresholds have been met, but no pods are active");
      quietUntil = now.plus(QUIET_AFTER_FAILURE);
      return Optional.empty();
    }
    Map<String, PodUsage> usage =
        rankingUsage(
            active,
            Thresholds.diskMaxAge(
                threshold.signal(), thresholdsFirstObservedAt.get(threshold), now, FRESH_DISK));
    List<Pod> ranked =
        Ranking.rank(threshold.signal(), active, usage, parts.dedicatedImageFs().getAsBoolean());
    log.info(
        "Eviction manager: pods ranked for eviction: {}",
        ranked.stream().map(p -> p.getMetadata().getName()).toList());
    for (Threshold t : thresholds) {
      Observation o = observations.get(t.signal());
      if (o != null) {
        parts.listener().statsAge(t.signal(), Duration.between(o.time(), now).toNanos() / 1e9);
      }
    }
    for (Pod pod : ranked) {
      if (Ranking.critical(pod)) {
        log.error(
            "Eviction manager: cannot evict a critical pod {}/{}",
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getName());
        continue;
      }
      long grace = evictor.evict(pod, threshold, resource, usage.get(Ranking.uid(pod)));
      parts.listener().evicted(threshold.signal().upstream());
      pending = pod;
      // From the eviction itself, not from this round's start (the ranking may take seconds).
      pendingUntil =
          clock.instant().plus(EvictionOptions.killWait(grace)).plus(options.cleanupTimeout());
      return Optional.of(pod);
    }
    log.info("Eviction manager: unable to evict any pods from the node");
    quietUntil = now.plus(QUIET_AFTER_FAILURE);
    return Optional.empty();
  }

  /** The latest sensible readings, as the summary reports them. Manager thread (or test) only. */
  Map<Signal, Observation> observations() {
    return Map.copyOf(readings);
  }

  /** Whether the last evicted pod is still stopping: nothing more is evicted meanwhile. */
  private boolean waitingForCleanup(Instant now) {
    if (pending == null) {
      return false;
    }
    String name = pending.getMetadata().getName();
    if (parts.pods().cleanedUp().test(pending)) {
      log.info("Eviction manager: pod {} successfully cleaned up", name);
      pending = null;
      return false;
    }
    if (!now.isBefore(pendingUntil)) {
      log.warn("Eviction manager: timed out waiting for pod {} to be cleaned up", name);
      pending = null;
      return false;
    }
    return true;
  }

  /**
   * Upstream's {@code reclaimNodeLevelResources}: for a disk signal, dead containers and then
   * unused images are removed, and the signals read again; true when no threshold is met then.
   */
  private boolean reclaimNodeLevelResources(Threshold threshold) {
    Signal s = threshold.signal();
    if (!Thresholds.disk(s)) {
      return false;
    }
    boolean imageFs = s == Signal.IMAGEFS_AVAILABLE || s == Signal.IMAGEFS_INODES_FREE;
    try {
      parts.reclaim().containerGc().deleteAllUnusedContainers();
    } catch (Exception e) {
      log.warn("Eviction manager: removing dead containers failed: {}", e.toString());
    }
    if (imageFs || !parts.dedicatedImageFs().getAsBoolean()) {
      try {
        long freed = parts.reclaim().imageGc().deleteUnusedImages();
        log.info("Eviction manager: unused images removed, {} bytes freed", freed);
      } catch (Exception e) {
        log.warn("Eviction manager: removing unused images failed: {}", e.toString());
      }
    }
    Map<Signal, Observation> after = read(false);
    return Thresholds.met(options.thresholds(), after, false).isEmpty();
  }

  /**
   * A fresh reading of the threshold's signal, before anything is done for it (an event, a reclaim,
   * an eviction). With its minimum reclaim: a threshold met stays met until the minimum is freed,
   * as in the iteration.
   */
  private boolean stillMet(Threshold threshold) {
    Map<Signal, Observation> fresh = read(Thresholds.memory(threshold.signal()));
    if (Thresholds.met(List.of(threshold), fresh, true).isEmpty()) {
      log.info(
          "Eviction manager: {} is no longer met on a fresh reading ({}); nothing evicted",
          threshold,
          fresh.get(threshold.signal()));
      return false;
    }
    return true;
  }

  private Map<String, PodUsage> readUsage(Duration diskMaxAge) {
    try {
      return parts.usage().read(diskMaxAge);
    } catch (RuntimeException e) {
      log.warn("Eviction manager: cannot read the pods' usage: {}", e.toString());
      return Map.of();
    }
  }

  /**
   * The pods' usage for ranking. A pod that runs nothing (no ready sandbox, no running container:
   * pending on a volume or an image pull, or between two sandboxes) is in no summary; it uses
   * nothing, so it is ranked by a usage of zero. Upstream ranks it first, as a pod whose reading
   * failed, and evicts a pod that was only waiting and frees nothing. A pod that runs and has no
   * reading is still ranked first, as upstream.
   */
  private Map<String, PodUsage> rankingUsage(List<Pod> active, Duration diskMaxAge) {
    Map<String, PodUsage> usage = new java.util.HashMap<>(readUsage(diskMaxAge));
    for (Pod p : active) {
      if (!usage.containsKey(Ranking.uid(p)) && parts.pods().cleanedUp().test(p)) {
        usage.put(Ranking.uid(p), PodUsage.NONE);
      }
    }
    return usage;
  }
}
