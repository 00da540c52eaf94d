package io.jkubelet.agent.kuberuntime;

/**
 * Why a container could not be started in this sync: a waiting reason from {@link WaitingReasons},
 * and a message for the status and the log.
 */
public final class StartFailure extends Exception {
  private final String reason;

  public StartFailure(String reason, String message) {
    super(message);
    this.reason = reason;
  }

  public String reason() {
    return reason;
  }
}
