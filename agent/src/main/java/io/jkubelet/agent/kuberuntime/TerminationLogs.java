package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file behind a container's {@code terminationMessagePath}, as upstream's {@code makeMounts}: a
 * new empty file {@code <root-dir>/pods/<uid>/containers/<name>/<8 hex digits>} for each instance
 * of the container, mode 0666 so that any user in the container can write it, bind-mounted
 * read-write. The runtime reads it back once the container has exited. Stateless.
 */
final class TerminationLogs {
  private static final Logger log = LoggerFactory.getLogger(TerminationLogs.class);

  private TerminationLogs() {}

  /**
   * Creates the file; null when the container has no path, or (as upstream, logged) when the file
   * cannot be made, so that the container still starts without it.
   */
  static Path create(NodeContext node, Pod pod, Container c) {
    String path = c.getTerminationMessagePath();
    if (path == null || path.isEmpty()) {
      return null;
    }
    Path dir = node.containerDir(pod.getMetadata().getUid(), c.getName());
    Path file = dir.resolve(String.format("%08x", ThreadLocalRandom.current().nextInt()));
    try {
      Files.createDirectories(
          dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
      Files.createFile(file);
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
      return file;
    } catch (IOException | UnsupportedOperationException e) {
      log.warn(
          "RuntimeManager: cannot create the termination-log file {} of container {} of pod {}: {}",
          file,
          c.getName(),
          pod.getMetadata().getName(),
          e.toString());
      return null;
    }
  }
}
