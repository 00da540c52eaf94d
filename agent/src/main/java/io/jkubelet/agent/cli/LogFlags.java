package io.jkubelet.agent.cli;

import io.jkubelet.agent.logs.PodLogPaths;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where logs go and what {@code /logs/} serves (a picocli mixin of {@code run}). Upstream has no
 * flags for these; they exist so that tests and unprivileged runs can point them elsewhere.
 */
final class LogFlags {
  @Option(
      names = "--pod-logs-dir",
      paramLabel = "DIR",
      defaultValue = "/var/log/pods",
      description =
          "Where containers' CRI log files go, <ns>_<pod>_<uid>/<container>/<restart>.log"
              + " (default: ${DEFAULT-VALUE}).")
  Path podLogsDir;

  @Option(
      names = "--container-logs-dir",
      paramLabel = "DIR",
      defaultValue = "/var/log/containers",
      description =
          "Where the <pod>_<ns>_<container>-<id>.log links to them go (default: ${DEFAULT-VALUE}).")
  Path containerLogsDir;

  @Option(
      names = "--node-log-dir",
      paramLabel = "DIR",
      defaultValue = "/var/log",
      description =
          "The directory /logs/ serves when enableSystemLogHandler is on (default:"
              + " ${DEFAULT-VALUE}).")
  Path nodeLogDir;

  PodLogPaths podLogPaths() {
    return new PodLogPaths(
        podLogsDir.toAbsolutePath().normalize(), containerLogsDir.toAbsolutePath().normalize());
  }

  Path nodeLogDir() {
    return nodeLogDir.toAbsolutePath().normalize();
  }
}
