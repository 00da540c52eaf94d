package io.jkubelet.agent.prober;

/** The kind of a container probe. */
public enum ProbeType {
  LIVENESS(ProbeResult.SUCCESS),
  READINESS(ProbeResult.FAILURE),
  STARTUP(ProbeResult.UNKNOWN);

  private final ProbeResult initialResult;

  ProbeType(ProbeResult initialResult) {
    this.initialResult = initialResult;
  }

  /**
   * The result published for a new container before any threshold is crossed, as upstream {@code
   * newWorker}: a container is not ready until proven so, alive until proven otherwise, and its
   * startup is unknown.
   */
  public ProbeResult initialResult() {
    return initialResult;
  }
}
