package io.jkubelet.agent.logs;

import io.jkubelet.agent.runtime.LogEntry;
import io.jkubelet.agent.runtime.LogEntrySink;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * One container instance's CRI log file and the stream that feeds it: {@link #follow} reads where
 * the file left off and follows the runtime from there, skipping what the file already holds; the
 * runtime's reading thread writes each entry. Thread-safe: entries, {@link #follow} and {@link
 * #stop} hold this object's lock.
 */
final class ContainerLogFile implements LogEntrySink {
  private static final Logger log = LoggerFactory.getLogger(ContainerLogFile.class);

  private final PodRef pod;
  private final String containerId;
  private final RotatingLogWriter writer;
  private final Path link;
  private final Runtime runtime;

  // Guarded by this.
  private AutoCloseable stream;
  private ResumePoint skip;
  private boolean stopped;
  private boolean warned;

  private volatile boolean ended = true;
  private volatile boolean failed;

  ContainerLogFile(
      PodRef pod, String containerId, RotatingLogWriter writer, Path link, Runtime runtime) {
    this.pod = pod;
    this.containerId = containerId;
    this.writer = writer;
    this.link = link;
    this.runtime = runtime;
  }

  /**
   * Starts (or resumes) following; a failure is logged and leaves it ended, to be retried, but a
   * container already gone only ends it.
   */
  synchronized void follow() {
    if (stopped) {
      return;
    }
    try {
      Optional<ResumePoint> from = ResumePoint.of(writer.file());
      skip = from.orElse(null);
      ensureLink();
      ended = false;
      failed = false;
      stream = runtime.followLogEntries(containerId, from.map(ResumePoint::time), this);
    } catch (IOException | RuntimeException e) {
      ended = true;
      if (e instanceof RuntimeError r && r.kind() == RuntimeError.Kind.NOT_FOUND) {
        // Removed before its output was followed (a pod scaled away at once): nothing to follow,
        // nothing to try again.
        log.debug("ContainerLogs: {} is gone before its output was followed", containerId);
      } else {
        failed = true;
        warnOnce("cannot follow the output of {}: {}", e);
      }
    }
  }

  /** The live file exists from the start (as the runtime creates it upstream), and its link. */
  private void ensureLink() throws IOException {
    if (!Files.exists(writer.file())) {
      Files.createDirectories(writer.file().getParent());
      Files.createFile(writer.file());
    }
    if (!Files.isSymbolicLink(link)) {
      Files.createDirectories(link.getParent());
      Files.deleteIfExists(link);
      Files.createSymbolicLink(link, writer.file());
    }
  }

  @Override
  public synchronized void entry(LogEntry e) {
    if (stopped || alreadyWritten(e.time())) {
      return;
    }
    byte[] c = e.content();
    boolean full = e.endsLine();
    try {
      writer.write(e.time(), e.stream(), !full, full ? Arrays.copyOf(c, c.length - 1) : c);
    } catch (IOException ex) {
      warnOnce("cannot write the log file of {}: {}", ex);
    }
  }

  /** Whether the file already holds this entry (the first ones after a resume). */
  private boolean alreadyWritten(Instant time) {
    if (skip == null) {
      return false;
    }
    if (time.isBefore(skip.time())) {
      return true;
    }
    if (time.equals(skip.time()) && skip.linesAtTime() > 0) {
      skip = new ResumePoint(skip.time(), skip.linesAtTime() - 1);
      return true;
    }
    skip = null;
    return false;
  }

  @Override
  public void end(Throwable error) {
    synchronized (this) {
      closeWriter();
    }
    failed = error != null;
    ended = true;
    if (error != null) {
      log.debug("ContainerLogs: the output stream of {} broke: {}", containerId, error.toString());
    }
  }

  /** Whether no stream feeds the file (never started, ended, or failed to start). */
  boolean ended() {
    return ended;
  }

  /** Whether the last stream ended with an error (or could not start). */
  boolean failed() {
    return failed;
  }

  /** Stops following for good and closes the file. */
  synchronized void stop() {
    stopped = true;
    if (stream != null) {
      try {
        stream.close();
      } catch (Exception e) {
        log.debug("ContainerLogs: closing the stream of {}: {}", containerId, e.toString());
      }
    }
    closeWriter();
  }

  /** Stops and removes the file, its rotated files and its link (upstream's {@code Clean}). */
  synchronized void remove() {
    stop();
    try {
      for (Path p : RotatingLogWriter.rotated(writer.file())) {
        Files.deleteIfExists(p);
      }
      Files.deleteIfExists(writer.file());
      Files.deleteIfExists(link);
    } catch (IOException e) {
      log.warn("ContainerLogs: cannot remove the log of {}: {}", containerId, e.toString());
    }
  }

  private void closeWriter() {
    try {
      writer.close();
    } catch (IOException e) {
      log.debug("ContainerLogs: closing {}: {}", writer.file(), e.toString());
    }
  }

  private void warnOnce(String format, Exception e) {
    MDC.put("pod", pod.namespace() + "/" + pod.name());
    MDC.put("podUid", pod.uid());
    try {
      if (!warned) {
        log.warn("ContainerLogs: " + format, containerId, e.toString());
        warned = true;
      } else {
        log.debug("ContainerLogs: " + format, containerId, e.toString());
      }
    } finally {
      MDC.remove("pod");
      MDC.remove("podUid");
    }
  }
}
