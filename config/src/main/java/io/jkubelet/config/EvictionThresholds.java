package io.jkubelet.config;

import io.jkubelet.config.EvictionSettings.Amount;
import io.jkubelet.config.EvictionSettings.Percentage;
import io.jkubelet.config.EvictionSettings.Signal;
import io.jkubelet.config.EvictionSettings.Threshold;
import io.jkubelet.config.EvictionSettings.Value;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Upstream's {@code ParseThresholdConfig} ({@code pkg/kubelet/eviction/helpers.go}): the maps of
 * {@link EvictionSettings} read into typed {@link Threshold}s, with upstream's messages. Pure
 * functions.
 */
final class EvictionThresholds {
  private EvictionThresholds() {}

  static List<Threshold> parse(
      Map<String, String> hard,
      Map<String, String> soft,
      Map<String, String> grace,
      Map<String, String> minReclaim,
      boolean enforcePods,
      boolean needGrace) {
    Map<Signal, Duration> periods = new TreeMap<>();
    grace.forEach(
        (k, v) -> {
          Signal s = signal("evictionSoftGracePeriod", k);
          Duration d;
          try {
            d = Durations.parse(v);
          } catch (IllegalArgumentException e) {
            throw ConfigException.causedBy("evictionSoftGracePeriod." + k, e.getMessage(), e);
          }
          if (d.isNegative()) {
            throw new ConfigException(
                "evictionSoftGracePeriod",
                "invalid eviction grace period specified: " + v + ", must be a positive value");
          }
          periods.put(s, d);
        });
    Map<Signal, Value> reclaims = new TreeMap<>();
    minReclaim.forEach(
        (k, v) -> {
          Signal s = signal("evictionMinimumReclaim", k);
          String field = "evictionMinimumReclaim";
          if (v.endsWith("%")) {
            float p = percentage(field, v);
            if (p <= 0) {
              throw new ConfigException(
                  field, "eviction percentage minimum reclaim " + s + " must be positive: " + v);
            }
            reclaims.put(s, new Percentage(p));
          } else {
            BigDecimal q = quantity(field, k, v);
            if (q.signum() < 0) {
              throw new ConfigException(
                  field, "negative eviction minimum reclaim specified for " + s);
            }
            reclaims.put(s, new Amount(Quantities.ceil(q)));
          }
        });
    List<Threshold> out = new ArrayList<>();
    hard.forEach(
        (k, v) ->
            statement("evictionHard", k, v)
                .ifPresent(
                    val ->
                        out.add(
                            new Threshold(
                                val.signal,
                                val.value,
                                Duration.ZERO,
                                Optional.ofNullable(reclaims.get(val.signal))))));
    soft.forEach(
        (k, v) ->
            statement("evictionSoft", k, v)
                .ifPresent(
                    val -> {
                      Duration period = periods.get(val.signal);
                      if (period == null && !needGrace) {
                        return;
                      }
                      if (period == null) {
                        throw new ConfigException(
                            "evictionSoftGracePeriod",
                            "grace period must be specified for the soft eviction threshold "
                                + val.signal);
                      }
                      out.add(
                          new Threshold(
                              val.signal,
                              val.value,
                              period,
                              Optional.ofNullable(reclaims.get(val.signal))));
                    }));
    if (enforcePods) {
      List<Threshold> extra = new ArrayList<>();
      for (Threshold t : out) {
        if (t.signal() == Signal.MEMORY_AVAILABLE && t.hard()) {
          extra.add(
              new Threshold(
                  Signal.ALLOCATABLE_MEMORY_AVAILABLE, t.value(), Duration.ZERO, t.minReclaim()));
        }
      }
      out.addAll(extra);
    }
    return List.copyOf(out);
  }

  private record Statement(Signal signal, Value value) {}

  private static Optional<Statement> statement(String field, String name, String v) {
    Signal s = signal(field, name);
    if (v.endsWith("%")) {
      if (v.equals("0%") || v.equals("100%")) {
        return Optional.empty();
      }
      float p = percentage(field, v);
      if (p < 0) {
        throw new ConfigException(
            field, "eviction percentage threshold " + s + " must be >= 0%: " + v);
      }
      if (p > 1) {
        throw new ConfigException(
            field, "eviction percentage threshold " + s + " must be <= 100%: " + v);
      }
      return Optional.of(new Statement(s, new Percentage(p)));
    }
    BigDecimal q = quantity(field, name, v);
    if (q.signum() <= 0) {
      throw new ConfigException(field, "eviction threshold " + s + " must be positive: " + v);
    }
    return Optional.of(new Statement(s, new Amount(Quantities.ceil(q))));
  }

  private static Signal signal(String field, String name) {
    // Every signal, allocatableMemory.available too, as upstream's validSignal (signalToResource).
    return Signal.of(name)
        .orElseThrow(() -> new ConfigException(field, "unsupported eviction signal " + name));
  }

  private static float percentage(String field, String v) {
    try {
      return Float.parseFloat(v.substring(0, v.length() - 1).strip()) / 100;
    } catch (NumberFormatException e) {
      throw ConfigException.causedBy(field, "invalid percentage \"" + v + "\"", e);
    }
  }

  private static BigDecimal quantity(String field, String name, String v) {
    try {
      return Quantities.parse(v);
    } catch (IllegalArgumentException e) {
      throw ConfigException.causedBy(field + "." + name, e.getMessage(), e);
    }
  }
}
