package io.jkubelet.agent.eviction;

import java.time.Instant;
import java.util.Objects;

/**
 * One reading of a signal, as upstream's {@code signalObservation}.
 *
 * @param available what is left: bytes, inodes or processes
 * @param capacity the total the percentages of thresholds are taken of
 * @param time when it was read
 */
public record Observation(long available, long capacity, Instant time) {
  public Observation {
    Objects.requireNonNull(time, "time");
  }

  /** As the log gives it, e.g. {@code nodefs.available=123 of 456 at <time>}. */
  static String describe(io.jkubelet.config.EvictionSettings.Signal signal, Observation o) {
    return o == null
        ? signal.upstream() + " not read"
        : signal.upstream() + "=" + o.available() + " of " + o.capacity() + " at " + o.time();
  }

  /**
   * Why this reading makes no sense, if it does not (kubernetes#52386): a negative amount, or more
   * available than there is. Such a reading is logged and never acted on.
   */
  public java.util.Optional<String> nonsense() {
    if (capacity <= 0) {
      return java.util.Optional.of("capacity " + capacity + " is not positive");
    }
    if (available < 0) {
      return java.util.Optional.of("available " + available + " is negative");
    }
    if (available > capacity) {
      return java.util.Optional.of(
          "available " + available + " is more than the capacity " + capacity);
    }
    return java.util.Optional.empty();
  }
}
