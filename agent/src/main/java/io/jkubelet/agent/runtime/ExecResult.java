package io.jkubelet.agent.runtime;

/**
 * What a command run in a container with {@link Runtime#exec} gave: its exit code and its output
 * (stdout and stderr interleaved, capped), or that it did not finish within its timeout.
 *
 * @param exitCode the command's exit code; meaningless when {@code timedOut}
 * @param output what the command wrote, never null
 * @param timedOut whether the timeout ran out first (the command may still run in the container)
 */
public record ExecResult(int exitCode, String output, boolean timedOut) {
  public ExecResult {
    output = output == null ? "" : output;
  }

  public static ExecResult timeout(String output) {
    return new ExecResult(-1, output, true);
  }
}
