package io.jkubelet.agent.prober;

import java.util.Objects;

/** The outcome of one probe attempt: a result and the human-readable output behind it. */
public record ProbeOutcome(ProbeResult result, String output) {
  public ProbeOutcome {
    Objects.requireNonNull(result, "result");
    output = output == null ? "" : output;
  }

  public static ProbeOutcome success(String output) {
    return new ProbeOutcome(ProbeResult.SUCCESS, output);
  }

  public static ProbeOutcome failure(String output) {
    return new ProbeOutcome(ProbeResult.FAILURE, output);
  }

  public static ProbeOutcome unknown(String output) {
    return new ProbeOutcome(ProbeResult.UNKNOWN, output);
  }
}
