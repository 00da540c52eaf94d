package io.jkubelet.agent.kuberuntime;

import io.jkubelet.agent.pod.WaitingReasons;
import io.jkubelet.agent.util.Failure;

/**
 * Thrown on the way to starting a container (image, configuration, environment) when it cannot
 * start; the sync turns it into the container's {@link StartFailure}.
 */
public final class StartException extends Failure {

  public StartException(String reason, String message) {
    super(reason, message);
  }

  /** The waiting reason, from {@link WaitingReasons}. */
  public String reason() {
    return detail();
  }

  public StartFailure failure() {
    return new StartFailure(reason(), getMessage());
  }
}
