package io.jkubelet.config;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
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
 * <p>A map flag replaces the file's whole map, as upstream's. {@code --eviction-hard} and {@code
 * --eviction-soft} are written {@code memory.available<100Mi,nodefs.available<10%}; the others
 * {@code key=value,...}.
 */
public record EvictionSettings(
    @Field(
            label = "SIGNAL<VALUE,...",
            separator = '<',
            value =
                "memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%,"
                    + "imagefs.available<15%",
            doc = "Hard eviction thresholds; an empty map: none")
        Map<String, String> evictionHard,
    @Field(
            label = "SIGNAL<VALUE,...",
            separator = '<',
            doc = "Soft eviction thresholds, each with a grace period")
        Map<String, String> evictionSoft,
    @Field(label = "SIGNAL=DURATION,...", doc = "How long a soft threshold must hold")
        Map<String, String> evictionSoftGracePeriod,
    @Field(label = "SIGNAL=QUANTITY,...", doc = "What an eviction frees beyond its threshold")
        Map<String, String> evictionMinimumReclaim,
    @Field(
            value = "5m",
            doc = "How long a pressure condition stays after its threshold was last met")
        Duration evictionPressureTransitionPeriod,
    @Field(
            label = "SECONDS",
            doc = "The most seconds a pod evicted by a soft threshold gets to stop; 0 for its own")
        int evictionMaxPodGracePeriod)
    implements Validated {

  public static final EvictionSettings DEFAULTS = Settings.defaults(EvictionSettings.class, false);

  /** Upstream's default {@code evictionHard} (Linux). */
  public static final Map<String, String> DEFAULT_HARD = DEFAULTS.evictionHard();

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
      Records.requireNonNull(Threshold.class, signal, value, gracePeriod, minReclaim);
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
  @Override
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
}
