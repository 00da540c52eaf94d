package io.jkubelet.agent.prober;

import java.time.Duration;
import java.util.Objects;

/**
 * What one attempt runs against: the pod IP (the default host of HTTP and TCP probes), the
 * container id (for exec probes) and the attempt's timeout.
 */
public record ProbeTarget(String podIp, String containerId, Duration timeout) {
  public ProbeTarget {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
  }
}
