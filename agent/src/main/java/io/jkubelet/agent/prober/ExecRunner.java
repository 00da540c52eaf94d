package io.jkubelet.agent.prober;

import io.jkubelet.agent.runtime.ExecResult;
import java.time.Duration;
import java.util.List;

/**
 * Runs a command inside a running container, for exec probes: {@code Runtime::exec} in production.
 * Implementations must be thread-safe: workers call them from a shared scheduler.
 */
@FunctionalInterface
public interface ExecRunner {
  /**
   * Runs {@code command} in the container and waits at most {@code timeout}.
   *
   * @throws RuntimeException when the command could not be run at all (the attempt's result is then
   *     thrown away, as upstream does with prober errors)
   */
  ExecResult exec(String containerId, List<String> command, Duration timeout);
}
