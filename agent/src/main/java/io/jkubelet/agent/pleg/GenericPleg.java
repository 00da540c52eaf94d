package io.jkubelet.agent.pleg;

import io.jkubelet.agent.pleg.PodLifecycleEvent.ContainerDied;
import io.jkubelet.agent.pleg.PodLifecycleEvent.ContainerRemoved;
import io.jkubelet.agent.pleg.PodLifecycleEvent.ContainerStarted;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.util.Lifecycle.Health;
import io.jkubelet.agent.util.OwnedScheduler;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Schedulers;
import io.jkubelet.config.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relists the runtime every {@code period} and turns what changed into events, as upstream's {@code
 * GenericPLEG} ({@code pkg/kubelet/pleg/generic.go}).
 *
 * <p>Why relist at all: the runtime's own event stream can drop events, and a relist is cheap (one
 * list call) and self-healing. The period must be short, because container deaths are seen only
 * through it; the pod workers' periodic resync backs it up when an event is missed. Pods whose
 * containers changed are re-inspected and written to the {@link PodCache}; then the cache's global
 * time moves to the relist's start, so every worker waiting for a newer status wakes up.
 *
 * <p>The PLEG is unhealthy when no relist has succeeded for {@code healthThreshold}.
 *
 * <p>Relists run one at a time on a {@link Scheduler} from the injected {@link Schedulers} (so a
 * fake clock steps them); {@code containers} is only touched by a relist.
 *
 * <p>The changed pods' inspections, several at a time, are {@link RelistInspects}'.
 */
public final class GenericPleg implements Pleg {
  private static final Logger log = LoggerFactory.getLogger(GenericPleg.class);

  private final Runtime runtime;
  private final PodCache cache;
  private final Clock clock;
  private final OwnedScheduler relists;
  private final Duration period;
  private final Duration healthThreshold;
  private final Predicate<PodLifecycleEvent> sink;
  private final RelistListener listener;
  private final RelistInspects inspects;

  /** How often at most a relist slower than its period is logged. */
  private static final Duration SLOW_REPORT = Duration.ofMinutes(1);

  private volatile Instant lastSlowReport;

  /**
   * Told after every relist, for the relist duration and the running pods and containers (package
   * {@code metrics}); it must be quick, as it runs on the relist's thread.
   */
  @FunctionalInterface
  public interface RelistListener {
    /**
     * @param listed what the runtime listed, or null when the listing failed
     */
    void relisted(Instant start, Instant end, List<ContainerSummary> listed);

    RelistListener NONE = (start, end, listed) -> {};
  }

  /** What the last relist saw: container id → (pod, state). */
  private Map<String, Seen> containers = new HashMap<>();

  private record Seen(PodRef pod, ContainerState state) {}

  private final AtomicReference<Instant> lastRelist = new AtomicReference<>();
  private final AtomicReference<Instant> startedAt = new AtomicReference<>();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicBoolean relistRequested = new AtomicBoolean();
  private final AtomicBoolean firstRelistLogged = new AtomicBoolean();

  /**
   * Pods to inspect at the next relist even if none of their containers changed: those whose
   * inspect failed, and those a hung runtime call left with a container's last known state (as
   * upstream's {@code podsToReinspect}).
   */
  private final Map<String, PodRef> toReinspect = new ConcurrentHashMap<>();

  private AutoCloseable events;

  /**
   * @param schedulers makes the scheduler the relists run on
   * @param sink receives events; returns false when it had no room, and the event is logged as
   *     dropped (the periodic resync recovers from it)
   * @param listener told of every relist; {@link RelistListener#NONE} for none
   */
  public GenericPleg(
      Runtime runtime,
      PodCache cache,
      Clock clock,
      Schedulers schedulers,
      Duration period,
      Duration healthThreshold,
      Predicate<PodLifecycleEvent> sink,
      RelistListener listener) {
    this.listener = listener;
    this.runtime = runtime;
    this.cache = cache;
    this.inspects = new RelistInspects(runtime, cache);
    this.clock = clock;
    this.relists =
        new OwnedScheduler(
            schedulers,
            "pleg",
            "PLEG has not started",
            s -> s.withFixedDelay(Duration.ZERO, period, this::relistSafely));
    this.period = period;
    this.healthThreshold = healthThreshold;
    this.sink = sink;
  }

  @Override
  public void start() {
    if (relists.current() != null) {
      return;
    }
    startedAt.set(clock.instant());
    relists.start();
    events = runtime.watchContainerEvents(this::requestRelist);
  }

  /**
   * Relists as soon as possible, for the runtime's event stream: a container that dies is seen in
   * milliseconds rather than at the next period. Requests coalesce while one is pending; before
   * {@link #start} they are ignored.
   */
  public void requestRelist() {
    Scheduler s = relists.current();
    if (s != null && relistRequested.compareAndSet(false, true)) {
      try {
        s.after(
            Duration.ZERO,
            () -> {
              relistRequested.set(false);
              relistSafely();
            });
      } catch (RejectedExecutionException e) {
        relistRequested.set(false); // stopping
      }
    }
  }

  /**
   * Inspects the pod at the next relist, which is requested now: a runtime call that hung for one
   * of its containers has returned.
   */
  public void reinspect(PodRef pod) {
    toReinspect.put(pod.uid(), pod);
    requestRelist();
  }

  @Override
  public void stop() {
    if (events != null) {
      try {
        events.close();
      } catch (Exception e) {
        log.debug("PLEG: closing the event watch: {}", e.toString());
      }
    }
    relists.stop();
  }

  @Override
  public Health healthy() {
    Instant now = clock.instant();
    Instant last = lastRelist.get();
    Instant since = last != null ? last : startedAt.get();
    if (since == null) {
      return Health.failing("PLEG has not started");
    }
    Duration age = Duration.between(since, now);
    if (age.compareTo(healthThreshold) > 0) {
      // Upstream's words, as runtimeState.runtimeErrors puts them.
      return Health.failing(
          "PLEG is not healthy: pleg was last seen active "
              + Durations.format(age)
              + " ago; threshold is "
              + Durations.format(healthThreshold));
    }
    return Health.OK;
  }

  private void relistSafely() {
    try {
      relist();
    } catch (RuntimeException e) {
      log.warn("PLEG relist failed: {}", e.toString());
    }
  }

  @Override
  public void relist() {
    Instant timestamp = clock.instant();
    List<ContainerSummary> listed = null;
    try {
      listed = runtime.listContainers();
      relist(timestamp, listed);
    } finally {
      Instant end = clock.instant();
      listener.relisted(timestamp, end, listed);
      Duration took = Duration.between(timestamp, end);
      Instant said = lastSlowReport;
      if (took.compareTo(period) > 0 && (said == null || !end.isBefore(said.plus(SLOW_REPORT)))) {
        // Workers wait for the relist (up to their own limit): a slow one delays every pod. Said
        // at most once a minute, since on a loaded node every relist may be slow.
        lastSlowReport = end;
        log.info(
            "PLEG: relisting took {} ms, longer than the period of {} ms ({} containers)",
            took.toMillis(),
            period.toMillis(),
            listed == null ? "listing failed" : listed.size());
      }
    }
  }

  private void relist(Instant timestamp, List<ContainerSummary> listed) {
    lastRelist.set(timestamp);

    Map<String, Seen> now = new HashMap<>();
    Map<String, List<String>> idsByPod = new HashMap<>();
    for (ContainerSummary c : listed) {
      now.put(c.id(), new Seen(c.pod(), c.state()));
      idsByPod.computeIfAbsent(c.pod().uid(), k -> new ArrayList<>()).add(c.id());
    }
    // Pods (by uid) with their events, in a stable order.
    Map<String, PodRef> changedPods = new LinkedHashMap<>();
    Map<String, List<PodLifecycleEvent>> events = new HashMap<>();
    now.forEach(
        (id, seen) -> {
          Seen old = containers.get(id);
          PodLifecycleEvent e =
              event(seen.pod().uid(), id, old == null ? null : old.state(), seen.state());
          if (e != null) {
            changedPods.put(seen.pod().uid(), seen.pod());
            events.computeIfAbsent(seen.pod().uid(), k -> new ArrayList<>()).add(e);
          }
        });
    containers.forEach(
        (id, old) -> {
          if (!now.containsKey(id)) {
            PodLifecycleEvent e = event(old.pod().uid(), id, old.state(), null);
            if (e != null) {
              changedPods.put(old.pod().uid(), old.pod());
              events.computeIfAbsent(old.pod().uid(), k -> new ArrayList<>()).add(e);
            }
          }
        });
    containers = now;
    for (PodRef pod : List.copyOf(toReinspect.values())) {
      toReinspect.remove(pod.uid(), pod);
      changedPods.putIfAbsent(pod.uid(), pod);
    }

    Set<String> failed = inspects.inspect(changedPods.values(), idsByPod, timestamp);
    for (PodRef pod : changedPods.values()) {
      if (failed.contains(pod.uid())) {
        // No events for a pod we could not inspect; the next relist inspects it again.
        toReinspect.putIfAbsent(pod.uid(), pod);
        continue;
      }
      for (PodLifecycleEvent e : events.getOrDefault(pod.uid(), List.of())) {
        if (!sink.test(e)) {
          long n = dropped.incrementAndGet();
          log.warn("PLEG: event channel is full, dropped {} ({} dropped so far)", e, n);
        }
      }
    }
    cache.updateTime(timestamp);
    if (firstRelistLogged.compareAndSet(false, true)) {
      log.info(
          "PLEG: first relist: {} containers listed, {} pods inspected, in {} ms",
          listed.size(),
          changedPods.size(),
          Duration.between(timestamp, clock.instant()).toMillis());
    }
  }

  /**
   * The event for a container that moved from {@code old} to {@code now} (null: absent), following
   * upstream's {@code generateEvents}.
   */
  static PodLifecycleEvent event(String uid, String id, ContainerState old, ContainerState now) {
    PlegState o = PlegState.of(old);
    PlegState n = PlegState.of(now);
    if (o == n) {
      return null;
    }
    return switch (n) {
      case RUNNING -> new ContainerStarted(uid, id);
      case EXITED -> new ContainerDied(uid, id);
      case UNKNOWN -> null;
      case NON_EXISTENT ->
          o == PlegState.EXITED || o == PlegState.UNKNOWN
              ? new ContainerRemoved(uid, id)
              : new ContainerDied(uid, id);
    };
  }

  private enum PlegState {
    RUNNING,
    EXITED,
    UNKNOWN,
    NON_EXISTENT;

    static PlegState of(ContainerState s) {
      if (s == null) {
        return NON_EXISTENT;
      }
      return switch (s) {
        case RUNNING -> RUNNING;
        case EXITED -> EXITED;
        case CREATED, UNKNOWN -> UNKNOWN;
      };
    }
  }
}
