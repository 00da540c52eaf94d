package io.jkubelet.agent.prober;

import io.fabric8.kubernetes.api.model.Probe;
import io.jkubelet.config.Records;
import java.time.Duration;

/**
 * The timing and thresholds of a probe, with upstream defaults applied (period 10s, timeout 1s,
 * success threshold 1, failure threshold 3; an unset or zero value takes the default). Validates in
 * its constructor.
 */
public record ProbeSettings(
    Duration initialDelay,
    Duration period,
    Duration timeout,
    int successThreshold,
    int failureThreshold) {

  public static final ProbeSettings DEFAULTS =
      new ProbeSettings(Duration.ZERO, Duration.ofSeconds(10), Duration.ofSeconds(1), 1, 3);

  public ProbeSettings {
    Records.requireNonNull(ProbeSettings.class, initialDelay, period, timeout);
    if (initialDelay.isNegative()) {
      throw new IllegalArgumentException("initialDelay must not be negative: " + initialDelay);
    }
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("period must be positive: " + period);
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
    if (successThreshold < 1 || failureThreshold < 1) {
      throw new IllegalArgumentException(
          "thresholds must be at least 1: success "
              + successThreshold
              + ", failure "
              + failureThreshold);
    }
  }

  /**
   * The settings of a probe definition, with defaults for unset or zero fields.
   *
   * @throws IllegalArgumentException for a negative field
   */
  public static ProbeSettings of(Probe probe) {
    return new ProbeSettings(
        Duration.ofSeconds(orDefault(probe.getInitialDelaySeconds(), 0, "initialDelaySeconds")),
        Duration.ofSeconds(orDefault(probe.getPeriodSeconds(), 10, "periodSeconds")),
        Duration.ofSeconds(orDefault(probe.getTimeoutSeconds(), 1, "timeoutSeconds")),
        orDefault(probe.getSuccessThreshold(), 1, "successThreshold"),
        orDefault(probe.getFailureThreshold(), 3, "failureThreshold"));
  }

  private static int orDefault(Integer value, int def, String field) {
    if (value == null || value == 0) {
      return def;
    }
    if (value < 0) {
      throw new IllegalArgumentException(field + " must not be negative: " + value);
    }
    return value;
  }
}
