package io.jkubelet.agent.eviction;

import io.jkubelet.config.EvictionSettings.Signal;
import io.jkubelet.config.EvictionSettings.Threshold;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The threshold arithmetic of upstream's {@code eviction/helpers.go} (v1.20), as pure functions:
 * which thresholds the observations meet, since when, the node conditions they make, and which
 * resource each signal reclaims.
 */
final class Thresholds {
  private Thresholds() {}

  static final String MEMORY_PRESSURE = "MemoryPressure";
  static final String DISK_PRESSURE = "DiskPressure";
  static final String PID_PRESSURE = "PIDPressure";

  /** The conditions in the order the node lists them. */
  static final List<String> CONDITIONS = List.of(MEMORY_PRESSURE, DISK_PRESSURE, PID_PRESSURE);

  /** Upstream's {@code signalToNodeCondition}. */
  static final Map<Signal, String> CONDITION = new EnumMap<>(Signal.class);

  /** Upstream's {@code signalToResource}. */
  static final Map<Signal, String> RESOURCE = new EnumMap<>(Signal.class);

  static {
    CONDITION.put(Signal.MEMORY_AVAILABLE, MEMORY_PRESSURE);
    CONDITION.put(Signal.ALLOCATABLE_MEMORY_AVAILABLE, MEMORY_PRESSURE);
    CONDITION.put(Signal.IMAGEFS_AVAILABLE, DISK_PRESSURE);
    CONDITION.put(Signal.NODEFS_AVAILABLE, DISK_PRESSURE);
    CONDITION.put(Signal.IMAGEFS_INODES_FREE, DISK_PRESSURE);
    CONDITION.put(Signal.NODEFS_INODES_FREE, DISK_PRESSURE);
    CONDITION.put(Signal.PID_AVAILABLE, PID_PRESSURE);
    RESOURCE.put(Signal.MEMORY_AVAILABLE, "memory");
    RESOURCE.put(Signal.ALLOCATABLE_MEMORY_AVAILABLE, "memory");
    RESOURCE.put(Signal.IMAGEFS_AVAILABLE, "ephemeral-storage");
    RESOURCE.put(Signal.IMAGEFS_INODES_FREE, "inodes");
    RESOURCE.put(Signal.NODEFS_AVAILABLE, "ephemeral-storage");
    RESOURCE.put(Signal.NODEFS_INODES_FREE, "inodes");
    RESOURCE.put(Signal.PID_AVAILABLE, "pids");
  }

  static boolean memory(Signal s) {
    return s == Signal.MEMORY_AVAILABLE || s == Signal.ALLOCATABLE_MEMORY_AVAILABLE;
  }

  static boolean disk(Signal s) {
    return DISK_PRESSURE.equals(CONDITION.get(s));
  }

  /**
   * How old the disk usage that ranks pods for signal {@code s} may be: for a disk signal, measured
   * after its threshold was first seen crossed ({@code firstObserved}; now when unknown), so that
   * it counts what crossed it (a container that filled its layer in the second before), and at most
   * {@code fresh} ago; upstream ranks on figures up to a minute old. Any age for other signals.
   */
  static Duration diskMaxAge(Signal s, Instant firstObserved, Instant now, Duration fresh) {
    if (!disk(s)) {
      return Readers.PodUsageReader.ANY_DISK_AGE;
    }
    Duration since = Duration.between(firstObserved == null ? now : firstObserved, now);
    return since.compareTo(fresh) < 0 ? since : fresh;
  }

  /**
   * The amount below which {@code t} is met on {@code o}, with its minimum reclaim added when
   * {@code enforceMinReclaim}.
   */
  static long quantity(Threshold t, Observation o, boolean enforceMinReclaim) {
    long q = t.value().resolve(o.capacity());
    if (enforceMinReclaim && t.minReclaim().isPresent()) {
      q += t.minReclaim().get().resolve(o.capacity());
    }
    return q;
  }

  /** Upstream's {@code thresholdsMet}: the thresholds whose signal is observed below them. */
  static List<Threshold> met(
      List<Threshold> thresholds, Map<Signal, Observation> observations, boolean minReclaim) {
    List<Threshold> out = new ArrayList<>();
    for (Threshold t : thresholds) {
      Observation o = observations.get(t.signal());
      if (o != null && quantity(t, o, minReclaim) > o.available()) {
        out.add(t);
      }
    }
    return out;
  }

  /** Upstream's {@code mergeThresholds}: both lists, each threshold once. */
  static List<Threshold> merge(List<Threshold> a, List<Threshold> b) {
    Set<Threshold> out = new LinkedHashSet<>(a);
    out.addAll(b);
    return List.copyOf(out);
  }

  /** Upstream's {@code thresholdsFirstObservedAt}: a met threshold keeps its first time. */
  static Map<Threshold, Instant> firstObservedAt(
      List<Threshold> thresholds, Map<Threshold, Instant> last, Instant now) {
    Map<Threshold, Instant> out = new LinkedHashMap<>();
    for (Threshold t : thresholds) {
      out.put(t, last.getOrDefault(t, now));
    }
    return out;
  }

  /** Upstream's {@code nodeConditions}: the conditions of the thresholds, in the node's order. */
  static Set<String> conditions(List<Threshold> thresholds) {
    Set<String> met = new LinkedHashSet<>();
    thresholds.forEach(t -> met.add(CONDITION.get(t.signal())));
    Set<String> out = new LinkedHashSet<>();
    CONDITIONS.stream().filter(met::contains).forEach(out::add);
    return out;
  }

  /** Upstream's {@code nodeConditionsLastObservedAt}: the observed ones at {@code now}. */
  static Map<String, Instant> conditionsLastObservedAt(
      Set<String> conditions, Map<String, Instant> last, Instant now) {
    Map<String, Instant> out = new LinkedHashMap<>(last);
    conditions.forEach(c -> out.put(c, now));
    return out;
  }

  /**
   * Upstream's {@code nodeConditionsObservedSince}: the conditions last observed less than {@code
   * period} ago, in the node's order.
   */
  static Set<String> observedSince(Map<String, Instant> observedAt, Duration period, Instant now) {
    Set<String> out = new LinkedHashSet<>();
    for (String c : CONDITIONS) {
      Instant at = observedAt.get(c);
      if (at != null && Duration.between(at, now).compareTo(period) < 0) {
        out.add(c);
      }
    }
    return out;
  }

  /** Upstream's {@code thresholdsMetGracePeriod}: those met for at least their grace period. */
  static List<Threshold> metGracePeriod(Map<Threshold, Instant> firstObservedAt, Instant now) {
    List<Threshold> out = new ArrayList<>();
    firstObservedAt.forEach(
        (t, at) -> {
          if (Duration.between(at, now).compareTo(t.gracePeriod()) >= 0) {
            out.add(t);
          }
        });
    return out;
  }

  /**
   * Upstream's {@code thresholdsUpdatedStats}: those whose signal has a reading newer than the last
   * one acted on.
   */
  static List<Threshold> updatedStats(
      List<Threshold> thresholds,
      Map<Signal, Observation> observations,
      Map<Signal, Observation> last) {
    List<Threshold> out = new ArrayList<>();
    for (Threshold t : thresholds) {
      Observation o = observations.get(t.signal());
      if (o == null) {
        continue;
      }
      Observation l = last.get(t.signal());
      if (l == null || !l.time().equals(o.time())) {
        out.add(t);
      }
    }
    return out;
  }

  /** Upstream's {@code byEvictionPriority}: memory first, then the rest in their order. */
  static List<Threshold> byEvictionPriority(List<Threshold> thresholds) {
    List<Threshold> out = new ArrayList<>(thresholds);
    out.sort(Comparator.comparing((Threshold t) -> memory(t.signal()) ? 0 : 1));
    return out;
  }
}
