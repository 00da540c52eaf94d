package io.jkubelet.agent.prober;

import java.util.Locale;

/** The kind of a container probe. */
public enum ProbeType {
  LIVENESS(ProbeResult.SUCCESS),
  READINESS(ProbeResult.FAILURE),
  STARTUP(ProbeResult.UNKNOWN);

  private final ProbeResult initialResult;
  private final String label;
  private final String title;

  ProbeType(ProbeResult initialResult) {
    this.initialResult = initialResult;
    this.label = name().toLowerCase(Locale.ROOT);
    this.title = Character.toUpperCase(label.charAt(0)) + label.substring(1);
  }

  /**
   * The result published for a new container before any threshold is crossed, as upstream {@code
   * newWorker}: a container is not ready until proven so, alive until proven otherwise, and its
   * startup is unknown.
   */
  public ProbeResult initialResult() {
    return initialResult;
  }

  /** "liveness", "readiness" or "startup", as upstream's kill messages and logs spell them. */
  public String label() {
    return label;
  }

  /** "Liveness", "Readiness" or "Startup", as upstream's event messages spell them. */
  public String title() {
    return title;
  }
}
