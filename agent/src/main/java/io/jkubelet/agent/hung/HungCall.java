package io.jkubelet.agent.hung;

import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.config.Durations;
import java.time.Duration;
import java.time.Instant;

/**
 * A runtime call that has not returned within its bound, and is still outstanding.
 *
 * @param call the CRI's name of the call, e.g. {@code ContainerStatus}, {@code StopContainer}
 * @param containerId the container or sandbox it is about; "" for a call about no container
 * @param subject what else it is about, e.g. {@code image "busybox"}; "" for nothing more
 * @param pod the pod it belongs to; null when unknown (the engine, or a container not yet listed)
 * @param container the container's name in the pod spec; "" for a sandbox or when unknown
 * @param since when the call was made
 * @param bound how long it was given
 */
public record HungCall(
    String call,
    String containerId,
    String subject,
    PodRef pod,
    String container,
    Instant since,
    Duration bound) {

  /** What hangs, e.g. {@code StopContainer of container "app" (4f1e2d3c4b5a)}. */
  public String what() {
    if (containerId.isEmpty()) {
      return subject.isEmpty() ? call + " of the engine" : call + " of " + subject;
    }
    String shortId = containerId.length() > 12 ? containerId.substring(0, 12) : containerId;
    return container.isEmpty()
        ? call + " of sandbox " + shortId
        : call + " of container \"" + container + "\" (" + shortId + ")";
  }

  /**
   * A hung call as {@code /pods} shows it on its pod ({@code jkubelet.io/runtime-calls-hung}).
   *
   * @param container the container's name in the pod spec; "" for the sandbox or when unknown
   * @param since when the call was made, RFC 3339
   * @param message {@link #message}
   */
  public record Report(
      String call, String container, String containerId, String since, String message) {}

  /** This call as {@code /pods} shows it, {@code now}. */
  public Report report(Instant now) {
    return new Report(call, container, containerId, since.toString(), message(now));
  }

  /** E.g. {@code StopContainer of container "app" (4f1e2d3c4b5a) has not returned after 2m10s}. */
  public String message(Instant now) {
    return what() + " has not returned after " + Durations.format(Duration.between(since, now));
  }
}
