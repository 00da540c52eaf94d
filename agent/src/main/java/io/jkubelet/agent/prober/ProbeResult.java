package io.jkubelet.agent.prober;

/** The result of a probe, as upstream {@code results.Result}. */
public enum ProbeResult {
  SUCCESS,
  FAILURE,
  /** No result yet, or the attempt could not tell (its result is thrown away). */
  UNKNOWN
}
