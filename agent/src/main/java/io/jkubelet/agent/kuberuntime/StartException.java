package io.jkubelet.agent.kuberuntime;

import io.jkubelet.agent.pod.WaitingReasons;

/**
 * Thrown on the way to starting a container (image, configuration, environment) when it cannot
 * start; the sync turns it into the container's {@link StartFailure}.
 */
public final class StartException extends Exception {
  private final String reason;

  public StartException(String reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** The waiting reason, from {@link WaitingReasons}. */
  public String reason() {
    return reason;
  }

  public StartFailure failure() {
    return new StartFailure(reason, getMessage());
  }
}
