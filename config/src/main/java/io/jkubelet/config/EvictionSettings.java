package io.jkubelet.config;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Upstream's eviction fields: {@code evictionHard}, {@code evictionSoft}, {@code
 * evictionSoftGracePeriod}, {@code evictionMinimumReclaim}, {@code
 * evictionPressureTransitionPeriod} and {@code evictionMaxPodGracePeriod}. The maps are kept as
 * written (upstream's config types); the constructor parses them as upstream's {@code
 * ParseThresholdConfig} does ({@code pkg/kubelet/eviction/helpers.go}, v1.20) and an error names
 * the field. {@link #thresholds} gives the typed thresholds.
 *
 * @param evictionHard signal to threshold, e.g. {@code memory.available: 100Mi}; default {@link
 *     #DEFAULT_HARD}; an empty map means no hard threshold
 * @param evictionSoft signal to threshold; each needs a grace period; default none
 * @param evictionSoftGracePeriod signal to a Go duration; default none
 * @param evictionMinimumReclaim signal to a quantity or percentage; default none
 * @param evictionPressureTransitionPeriod how long a pressure condition stays after its threshold
 *     was last met; default 5m
 * @param evictionMaxPodGracePeriod the most seconds a pod gets when a soft threshold evicts it;
 *     default 0 (none: the pod's own)
 */
public record EvictionSettings(
    Map<String, String> evictionHard,
    Map<String, String> evictionSoft,
    Map<String, String> evictionSoftGracePeriod,
    Map<String, String> evictionMinimumReclaim,
    Duration evictionPressureTransitionPeriod,
    int evictionMaxPodGracePeriod) {

  /** Upstream's default {@code evictionHard} (Linux). */
  public static final Map<String, String> DEFAULT_HARD =
      Map.of(
          "memory.available", "100Mi",
          "nodefs.available", "10%",
          "nodefs.inodesFree", "5%",
          "imagefs.available", "15%");

  public static final EvictionSettings DEFAULTS =
      new EvictionSettings(DEFAULT_HARD, Map.of(), Map.of(), Map.of(), Duration.ofMinutes(5), 0);

  /** The eviction signals, with upstream's names. */
  public enum Signal {
    MEMORY_AVAILABLE("memory.available"),
    ALLOCATABLE_MEMORY_AVAILABLE("allocatableMemory.available"),
    NODEFS_AVAILABLE("nodefs.available"),
    NODEFS_INODES_FREE("nodefs.inodesFree"),
    IMAGEFS_AVAILABLE("imagefs.available"),
    IMAGEFS_INODES_FREE("imagefs.inodesFree"),
    PID_AVAILABLE("pid.available");

    private final String upstream;

    Signal(String upstream) {
      this.upstream = upstream;
    }

    /** Upstream's name, e.g. {@code memory.available}. */
    public String upstream() {
      return upstream;
    }

    /** The signal of that name, if upstream has it. */
    public static Optional<Signal> of(String name) {
      for (Signal s : values()) {
        if (s.upstream.equals(name)) {
          return Optional.of(s);
        }
      }
      return Optional.empty();
    }

    @Override
    public String toString() {
      return upstream;
    }
  }

  /** A threshold's value: an amount in the signal's unit, or a fraction of its capacity. */
  public sealed interface Value {
    /** The amount this value stands for on a resource of {@code capacity}. */
    long resolve(long capacity);
  }

  /** An absolute amount: bytes, inodes or processes. */
  public record Amount(long amount) implements Value {
    @Override
    public long resolve(long capacity) {
      return amount;
    }

    @Override
    public String toString() {
      return Long.toString(amount);
    }
  }

  /**
   * A fraction of the capacity, 0 to 1, as upstream's float32 {@code Percentage}.
   *
   * @param fraction e.g. 0.1 for {@code 10%}
   */
  public record Percentage(float fraction) implements Value {
    @Override
    public long resolve(long capacity) {
      return (long) ((double) capacity * (double) fraction);
    }

    @Override
    public String toString() {
      return (fraction * 100) + "%";
    }
  }

  /**
   * One threshold: met when the signal's available amount is below {@code value} (upstream's only
   * operator, {@code LessThan}).
   *
   * @param gracePeriod zero for a hard threshold
   * @param minReclaim what must be freed beyond the threshold before its pressure ends
   */
  public record Threshold(
      Signal signal, Value value, Duration gracePeriod, Optional<Value> minReclaim) {
    public Threshold {
      Objects.requireNonNull(signal, "signal");
      Objects.requireNonNull(value, "value");
      Objects.requireNonNull(gracePeriod, "gracePeriod");
      Objects.requireNonNull(minReclaim, "minReclaim");
    }

    /** Upstream's {@code isHardEvictionThreshold}: no grace period. */
    public boolean hard() {
      return gracePeriod.isZero();
    }

    /** Upstream's {@code formatThreshold}. */
    @Override
    public String toString() {
      return "threshold(signal="
          + signal
          + ", operator=LessThan, value="
          + value
          + ", gracePeriod="
          + Durations.format(gracePeriod)
          + ")";
    }
  }

  public EvictionSettings {
    evictionHard = sorted(evictionHard);
    evictionSoft = sorted(evictionSoft);
    evictionSoftGracePeriod = sorted(evictionSoftGracePeriod);
    evictionMinimumReclaim = sorted(evictionMinimumReclaim);
    Objects.requireNonNull(evictionPressureTransitionPeriod, "evictionPressureTransitionPeriod");
    if (evictionPressureTransitionPeriod.isNegative()) {
      throw new ConfigException(
          "evictionPressureTransitionPeriod",
          "must not be negative, got " + Durations.format(evictionPressureTransitionPeriod));
    }
    if (evictionMaxPodGracePeriod < 0) {
      throw new ConfigException(
          "evictionMaxPodGracePeriod", "must not be negative, got " + evictionMaxPodGracePeriod);
    }
    // Each map on its own; that every soft threshold has its grace period is checked by
    // thresholds(), which ConfigValidator calls once the file and the flags are both applied.
    EvictionThresholds.parse(
        evictionHard, evictionSoft, evictionSoftGracePeriod, evictionMinimumReclaim, false, false);
  }

  /**
   * The thresholds, hard first, as upstream's {@code ParseThresholdConfig}: each soft one with its
   * grace period, each with its minimum reclaim; with {@code enforcePods} ({@code
   * enforceNodeAllocatable} has {@code pods}) a hard {@code memory.available} threshold is repeated
   * for {@code allocatableMemory.available}.
   */
  public List<Threshold> thresholds(boolean enforcePods) {
    return EvictionThresholds.parse(
        evictionHard,
        evictionSoft,
        evictionSoftGracePeriod,
        evictionMinimumReclaim,
        enforcePods,
        true);
  }

  /**
   * @throws ConfigException when a soft threshold has no grace period
   */
  public void validate() {
    thresholds(false);
  }

  /** The hard threshold of {@code signal}, if any. */
  public Optional<Threshold> hard(Signal signal) {
    return thresholds(false).stream().filter(t -> t.hard() && t.signal() == signal).findFirst();
  }

  private static Map<String, String> sorted(Map<String, String> m) {
    return m == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(m));
  }

  public EvictionSettings withEvictionHard(Map<String, String> v) {
    return new EvictionSettings(
        v,
        evictionSoft,
        evictionSoftGracePeriod,
        evictionMinimumReclaim,
        evictionPressureTransitionPeriod,
        evictionMaxPodGracePeriod);
  }

  public EvictionSettings withEvictionSoft(Map<String, String> v) {
    return new EvictionSettings(
        evictionHard,
        v,
        evictionSoftGracePeriod,
        evictionMinimumReclaim,
        evictionPressureTransitionPeriod,
        evictionMaxPodGracePeriod);
  }

  public EvictionSettings withEvictionSoftGracePeriod(Map<String, String> v) {
    return new EvictionSettings(
        evictionHard,
        evictionSoft,
        v,
        evictionMinimumReclaim,
        evictionPressureTransitionPeriod,
        evictionMaxPodGracePeriod);
  }

  public EvictionSettings withEvictionMinimumReclaim(Map<String, String> v) {
    return new EvictionSettings(
        evictionHard,
        evictionSoft,
        evictionSoftGracePeriod,
        v,
        evictionPressureTransitionPeriod,
        evictionMaxPodGracePeriod);
  }

  public EvictionSettings withEvictionPressureTransitionPeriod(Duration v) {
    return new EvictionSettings(
        evictionHard,
        evictionSoft,
        evictionSoftGracePeriod,
        evictionMinimumReclaim,
        v,
        evictionMaxPodGracePeriod);
  }

  public EvictionSettings withEvictionMaxPodGracePeriod(int v) {
    return new EvictionSettings(
        evictionHard,
        evictionSoft,
        evictionSoftGracePeriod,
        evictionMinimumReclaim,
        evictionPressureTransitionPeriod,
        v);
  }
}
