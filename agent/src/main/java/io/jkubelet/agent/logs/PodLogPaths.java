package io.jkubelet.agent.logs;

import java.nio.file.Path;

/**
 * Where upstream keeps container logs: {@code
 * <podLogsDir>/<ns>_<pod>_<uid>/<container>/<restart>.log} (default {@code /var/log/pods}) and the
 * links {@code <containerLogsDir>/<pod>_<ns>_<container>-<containerId>.log} (default {@code
 * /var/log/containers}) that log shippers read.
 */
public record PodLogPaths(Path podLogsDir, Path containerLogsDir) {
  /** Upstream's directories. */
  public static final PodLogPaths DEFAULT =
      new PodLogPaths(Path.of("/var/log/pods"), Path.of("/var/log/containers"));

  /** A pod's log directory. */
  public Path podDir(String namespace, String pod, String uid) {
    return podLogsDir.resolve(namespace + "_" + pod + "_" + uid);
  }

  /** The log file of one instance of a container, by its restart count. */
  public Path containerLog(
      String namespace, String pod, String uid, String container, int restart) {
    return podDir(namespace, pod, uid).resolve(container).resolve(restart + ".log");
  }

  /** The link to a container instance's log file. */
  public Path link(String namespace, String pod, String container, String containerId) {
    return containerLogsDir.resolve(
        pod + "_" + namespace + "_" + container + "-" + containerId + ".log");
  }
}
