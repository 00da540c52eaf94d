package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.command.InspectExecResponse;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.runtime.StreamHandle;
import io.jkubelet.agent.runtime.StreamIo;
import io.jkubelet.agent.runtime.TerminalSize;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.config.Durations;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Interactive exec and attach, as dockershim's {@code streamingRuntime} did them: the exec instance
 * and the resizes through docker-java, the streams over a {@link Hijack}ed connection joined to the
 * client by an {@link AttachedStream}, the exit code from the exec's inspect.
 *
 * <p>An exec whose client goes away before it ends is not left running (Docker cannot kill an
 * exec): its process and the processes it started are killed through the host's process table,
 * after checking that the pid is in the container's pid namespace (a jkubelet that does not share
 * the engine's pid namespace kills nothing and says so).
 *
 * <p>Thread-safe.
 */
final class DockerStreams {
  private static final Logger log = LoggerFactory.getLogger(DockerStreams.class);

  /** How long an exec may still run after its streams ended before its exit code is unknown. */
  static final Duration EXIT_CODE_WAIT = Duration.ofSeconds(10);

  /** How long an exec whose client left may take to start (show its pid) or end. */
  static final Duration START_WAIT = Duration.ofSeconds(10);

  private final DockerClient api;
  private final String host;
  private final ExecSync execs;
  private final Clock clock;

  DockerStreams(DockerClients clients, String host, ExecSync execs, Clock clock) {
    this.api = clients.api();
    this.host = host;
    this.execs = execs;
    this.clock = clock;
  }

  StreamHandle exec(String containerId, List<String> command, StreamIo io) {
    Objects.requireNonNull(containerId, "containerId");
    if (command == null || command.isEmpty()) {
      throw new RuntimeError(Kind.OTHER, "exec in " + containerId + ": no command given");
    }
    String execId;
    try {
      execId =
          api.execCreateCmd(containerId)
              .withCmd(command.toArray(String[]::new))
              .withAttachStdin(io.stdin() != null)
              .withAttachStdout(io.stdout() != null)
              .withAttachStderr(io.stderr() != null && !io.tty())
              .withTty(io.tty())
              .exec()
              .getId();
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
    Hijack conn =
        Hijack.open(
            host, "/exec/" + execId + "/start", "{\"Detach\":false,\"Tty\":" + io.tty() + "}");
    String what = "exec " + command + " in " + shortId(containerId);
    log.debug("DockerRuntime: {} started as {}", what, execId);
    return new AttachedStream(
            what,
            conn,
            io,
            io.tty(),
            size -> resizeExec(execId, size),
            () -> exitCode(execId),
            () -> killExec(execId, containerId))
        .start();
  }

  StreamHandle attach(String containerId, StreamIo io) {
    InspectContainerResponse inspected;
    try {
      inspected = api.inspectContainerCmd(containerId).exec();
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
    if (inspected.getState() == null || !Boolean.TRUE.equals(inspected.getState().getRunning())) {
      throw new RuntimeError(Kind.OTHER, "container not running (" + containerId + ")");
    }
    boolean tty =
        inspected.getConfig() != null && Boolean.TRUE.equals(inspected.getConfig().getTty());
    String query =
        "stream=1&stdin="
            + flag(io.stdin() != null)
            + "&stdout="
            + flag(io.stdout() != null)
            + "&stderr="
            + flag(io.stderr() != null || tty && io.stdout() == null);
    Hijack conn = Hijack.open(host, "/containers/" + containerId + "/attach?" + query, "");
    return new AttachedStream(
            "attach to " + shortId(containerId),
            conn,
            io,
            tty,
            size -> resizeContainer(containerId, size),
            () -> StreamHandle.NO_EXIT_CODE,
            () -> {})
        .start();
  }

  private static String flag(boolean b) {
    return b ? "1" : "0";
  }

  private void resizeExec(String execId, TerminalSize size) {
    try {
      api.resizeExecCmd(execId).withSize(size.height(), size.width()).exec();
    } catch (RuntimeException e) {
      log.debug("DockerRuntime: resizing exec {} to {} failed: {}", execId, size, e.toString());
    }
  }

  private void resizeContainer(String containerId, TerminalSize size) {
    try {
      api.resizeContainerCmd(containerId).withSize(size.height(), size.width()).exec();
    } catch (RuntimeException e) {
      log.debug("DockerRuntime: resizing {} to {} failed: {}", containerId, size, e.toString());
    }
  }

  private int exitCode(String execId) {
    try {
      Long code = execs.awaitExitCode(execId, clock.instant().plus(EXIT_CODE_WAIT));
      if (code == null) {
        throw new RuntimeError(
            Kind.OTHER, "exec " + execId + " still runs " + EXIT_CODE_WAIT + " after its streams");
      }
      return Containers.clampToInt(code);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Errors.withCause(
          new RuntimeError(Kind.OTHER, "interrupted while waiting for exec " + execId), e);
    } catch (RuntimeException e) {
      throw e instanceof RuntimeError r ? r : DockerErrors.translate(e, null);
    }
  }

  /**
   * Kills an exec's process tree if it still runs; see the class comment. An exec the client left
   * at once may not have started yet: the engine answers the start request before it marks the exec
   * running, and gives its pid only once the process is there. So this waits, up to {@link
   * #START_WAIT}, for the pid or the exit code.
   */
  private void killExec(String execId, String containerId) {
    try {
      InspectExecResponse exec =
          execs.awaitInspect(
              execId, clock.instant().plus(START_WAIT), DockerStreams::startedOrEnded, "to start");
      if (exec == null) {
        log.info(
            "DockerRuntime: exec {} in {} neither started nor ended within {} after its client"
                + " left; it is left running",
            execId,
            shortId(containerId),
            Durations.format(START_WAIT));
        return;
      }
      if (!Boolean.TRUE.equals(exec.isRunning())) {
        return; // it ended with its streams
      }
      long pid = exec.getPidLong();
      Long containerPid = api.inspectContainerCmd(containerId).exec().getState().getPidLong();
      if (containerPid == null || !samePidNamespace(pid, containerPid)) {
        log.info(
            "DockerRuntime: exec {} in {} still runs after its client left, and its pid {} is not"
                + " in this host's view of the container; it is left running",
            execId,
            shortId(containerId),
            pid);
        return;
      }
      ProcessHandle.of(pid)
          .ifPresent(
              p -> {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
              });
      log.info(
          "DockerRuntime: killed exec {} in {} (pid {}) after its client left",
          execId,
          shortId(containerId),
          pid);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn(
          "DockerRuntime: exec {} in {} may still run after its client left: interrupted",
          execId,
          shortId(containerId));
    } catch (RuntimeException e) {
      log.warn(
          "DockerRuntime: exec {} in {} may still run after its client left: {}",
          execId,
          shortId(containerId),
          e.toString());
    }
  }

  /** Running with its pid, or ended with its exit code (not started yet is neither). */
  private static boolean startedOrEnded(InspectExecResponse exec) {
    return Boolean.TRUE.equals(exec.isRunning())
        ? exec.getPidLong() != null && exec.getPidLong() > 0
        : exec.getExitCodeLong() != null;
  }

  private static boolean samePidNamespace(long pid, long containerPid) {
    try {
      Path a = Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", "pid"));
      Path b = Files.readSymbolicLink(Path.of("/proc", Long.toString(containerPid), "ns", "pid"));
      return a.equals(b);
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  static String shortId(String id) {
    return id.length() > 12 ? id.substring(0, 12) : id;
  }
}
