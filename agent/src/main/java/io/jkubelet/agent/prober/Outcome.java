package io.jkubelet.agent.prober;

import java.util.Objects;

/** The outcome of one probe attempt: a result and the human-readable output behind it. */
public record Outcome(ProbeResult result, String output) {
  public Outcome {
    Objects.requireNonNull(result, "result");
    output = output == null ? "" : output;
  }

  public static Outcome success(String output) {
    return new Outcome(ProbeResult.SUCCESS, output);
  }

  public static Outcome failure(String output) {
    return new Outcome(ProbeResult.FAILURE, output);
  }

  public static Outcome unknown(String output) {
    return new Outcome(ProbeResult.UNKNOWN, output);
  }
}
