package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectExecResponse;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.agent.util.Sleeper;
import io.jkubelet.config.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a command in a container as dockershim's {@code ExecSync} did: an exec instance attached to
 * stdout and stderr (no stdin, no TTY), whose output is collected while it runs ({@link
 * ExecCallback}) and whose exit code is then read from the exec's inspect. The attach stream is on
 * the long-call client, so a command may run (silently) for up to {@link
 * DockerClients#LONG_RESPONSE_TIMEOUT}; the short client would cut it after {@value
 * DockerClients#RESPONSE_TIMEOUT_SECONDS} s.
 *
 * <p>Stdout and stderr are kept interleaved as they arrive, up to {@link #MAX_OUTPUT_BYTES} bytes;
 * the rest is read and discarded. A null or non-positive timeout waits without limit; the deadline
 * is on the injected clock. When the timeout runs out, the result is {@link ExecResult#timeout}
 * with the output so far.
 *
 * <p>A missing container is {@code NOT_FOUND}; a container that is not running is {@code OTHER}
 * with the engine's message. An executable that does not exist is not an error here: the engine
 * creates the exec, the start fails inside the container, and the result carries the runtime's exit
 * code (126 on Docker 20.10, 127 on some runtimes) with its "OCI runtime exec failed" message as
 * output, which is what upstream's probes report.
 *
 * <p>Thread-safe: each call has its own callback.
 */
final class ExecSync {
  private static final Logger log = LoggerFactory.getLogger(ExecSync.class);

  /** The most output an exec keeps: 10 KiB, as upstream's probes keep. */
  static final int MAX_OUTPUT_BYTES = 10 * 1024;

  /** The pauses between two inspects in {@link #awaitExitCode}: 5 ms, doubling up to 500 ms. */
  static final Backoff.Policy POLL =
      new Backoff.Policy(Duration.ofMillis(5), Duration.ofMillis(500));

  private final DockerClient api;
  private final DockerClient longCalls;
  private final Clock clock;
  private final Sleeper sleeper;

  ExecSync(DockerClients clients, Clock clock, Sleeper sleeper) {
    this.api = clients.api();
    this.longCalls = clients.longCalls();
    this.clock = clock;
    this.sleeper = sleeper;
  }

  /** Runs the command; see the class comment. */
  ExecResult exec(String containerId, List<String> command, Duration timeout) {
    Objects.requireNonNull(containerId, "containerId");
    if (command == null || command.isEmpty()) {
      throw new RuntimeError(Kind.OTHER, "exec in " + containerId + ": no command given");
    }
    Instant deadline =
        timeout != null && timeout.isPositive() ? clock.instant().plus(timeout) : null;
    String execId = create(containerId, command);
    ExecCallback callback = new ExecCallback(MAX_OUTPUT_BYTES);
    try {
      longCalls.execStartCmd(execId).exec(callback);
      if (!awaitStream(callback, deadline)) {
        // NOTE: Docker has no way to kill an exec'd process, so the command may keep running in
        // the container after this returns (as with dockershim); only the attach stream is closed.
        callback.abandon();
        log.debug(
            "DockerRuntime: exec {} in {} timed out after {}",
            command,
            containerId,
            Durations.format(timeout));
        return ExecResult.timeout(callback.output());
      }
      if (callback.failure() != null) {
        log.debug(
            "DockerRuntime: exec {} in {} failed: {}", command, containerId, callback.failure());
        throw DockerErrors.translate(callback.failure(), null);
      }
      return result(containerId, command, callback, awaitExitCode(execId, deadline));
    } catch (InterruptedException e) {
      callback.abandon();
      Thread.currentThread().interrupt();
      throw Errors.withCause(
          new RuntimeError(
              Kind.OTHER, "interrupted while running " + command + " in " + containerId),
          e);
    } catch (RuntimeException e) {
      callback.abandon();
      throw DockerErrors.translate(e, null);
    }
  }

  /** Creates the exec instance; returns its id. */
  private String create(String containerId, List<String> command) {
    try {
      return api.execCreateCmd(containerId)
          .withCmd(command.toArray(String[]::new))
          .withAttachStdout(true)
          .withAttachStderr(true)
          .exec()
          .getId();
    } catch (RuntimeException e) {
      // 404: no such container; 409: "Container <id> is not running" (or paused, or restarting).
      throw DockerErrors.translate(e, null);
    }
  }

  /** Waits for the attach stream to end; false if the deadline (null: none) came first. */
  private boolean awaitStream(ExecCallback callback, Instant deadline) throws InterruptedException {
    if (deadline == null) {
      callback.awaitCompletion();
      return true;
    }
    return callback.awaitCompletion(left(deadline).toNanos(), TimeUnit.NANOSECONDS);
  }

  private ExecResult result(
      String containerId, List<String> command, ExecCallback callback, Long exitCode) {
    String output = callback.output();
    if (exitCode == null) {
      // The stream ended but the exec still ran at the deadline (see awaitExitCode).
      log.debug(
          "DockerRuntime: exec {} in {} closed its output but did not exit in time",
          command,
          containerId);
      return ExecResult.timeout(output);
    }
    if (callback.discarded() > 0) {
      log.debug(
          "DockerRuntime: exec {} in {}: kept {} bytes of output, discarded {}",
          command,
          containerId,
          MAX_OUTPUT_BYTES,
          callback.discarded());
    }
    log.debug("DockerRuntime: exec {} in {} exited with {}", command, containerId, exitCode);
    return new ExecResult(Containers.clampToInt(exitCode), output, false);
  }

  /**
   * The exit code of an exec whose streams have closed, or null if it still runs at the deadline
   * (null: none). The first inspect normally has it: Docker 20.10 ends the attach stream only once
   * the process has exited, even one that closed its stdout and stderr early. dockershim
   * nevertheless saw execs still running after their stream ended and polled for the exit, so this
   * does too (see {@link #awaitInspect}).
   */
  Long awaitExitCode(String execId, Instant deadline) throws InterruptedException {
    InspectExecResponse ended =
        awaitInspect(execId, deadline, e -> !Boolean.TRUE.equals(e.isRunning()), "to exit");
    if (ended == null) {
      return null;
    }
    if (ended.getExitCodeLong() == null) {
      throw new RuntimeError(Kind.OTHER, "exec " + execId + " ended without an exit code");
    }
    return ended.getExitCodeLong();
  }

  /**
   * The exec's inspect once {@code done} holds for it, or null if it does not at the deadline
   * (null: none). Inspects again after a pause from {@link #POLL}: the engine has no event to wait
   * on short of the whole event stream.
   *
   * @param waitingFor what the exec is waited for, for the debug log ("to exit")
   */
  InspectExecResponse awaitInspect(
      String execId, Instant deadline, Predicate<InspectExecResponse> done, String waitingFor)
      throws InterruptedException {
    Duration pause = null;
    while (true) {
      InspectExecResponse inspected = api.inspectExecCmd(execId).exec();
      if (done.test(inspected)) {
        return inspected;
      }
      pause = POLL.next(pause);
      Duration wait = pause;
      if (deadline != null) {
        Duration left = left(deadline);
        if (!left.isPositive()) {
          return null;
        }
        wait = left.compareTo(wait) < 0 ? left : wait;
      }
      log.debug("DockerRuntime: waiting for exec {} {}", execId, waitingFor);
      sleeper.sleep(wait);
    }
  }

  private Duration left(Instant deadline) {
    return Duration.between(clock.instant(), deadline);
  }
}
