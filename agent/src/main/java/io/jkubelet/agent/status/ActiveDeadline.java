package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A pod's {@code activeDeadlineSeconds}, as upstream's {@code activeDeadlineHandler}: once the pod
 * has been active (since its status' start time) for that long, it fails with reason {@link
 * #REASON} and its containers are killed.
 *
 * <p>A pure function of its inputs; thread-safe.
 */
public final class ActiveDeadline {
  /** The pod's status reason, and the event's. */
  public static final String REASON = "DeadlineExceeded";

  /** The pod's status message, and the event's. */
  public static final String MESSAGE =
      "Pod was active on the node longer than the specified deadline";

  private ActiveDeadline() {}

  /**
   * How long until the deadline passes: empty when the pod has no deadline or has not started, zero
   * or negative once it has passed.
   */
  public static Optional<Duration> remaining(Pod pod, Instant startTime, Instant now) {
    Long seconds = pod.getSpec().getActiveDeadlineSeconds();
    if (seconds == null || startTime == null) {
      return Optional.empty();
    }
    return Optional.of(Duration.between(now, startTime.plusSeconds(seconds)));
  }

  /** Whether the deadline has passed. */
  public static boolean passed(Pod pod, Instant startTime, Instant now) {
    return remaining(pod, startTime, now).map(d -> !d.isPositive()).orElse(false);
  }
}
