package io.jkubelet.agent.pod;

/** The pod phases, as the API writes them, and which of them are final. */
public final class PodPhases {
  public static final String PENDING = "Pending";
  public static final String RUNNING = "Running";
  public static final String SUCCEEDED = "Succeeded";
  public static final String FAILED = "Failed";

  private PodPhases() {}

  /** Whether a pod phase is final: Succeeded or Failed never change again. */
  public static boolean isTerminal(String phase) {
    return SUCCEEDED.equals(phase) || FAILED.equals(phase);
  }
}
