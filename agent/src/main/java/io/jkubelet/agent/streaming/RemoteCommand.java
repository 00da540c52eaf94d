package io.jkubelet.agent.streaming;

import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.StreamHandle;
import io.jkubelet.agent.runtime.StreamIo;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one exec or attach over a client's {@link RemoteCommandStreams}, as upstream's {@code
 * ServeExec} and {@code ServeAttach}: starts the runtime's stream, passes resizes on, waits for the
 * end, and reports it as an {@link ExecStatus}. A client that goes away closes the runtime's
 * stream, so nothing is left running for it.
 */
final class RemoteCommand {
  private static final Logger log = LoggerFactory.getLogger(RemoteCommand.class);

  /** Exec or attach: what upstream prefixes a runtime error with. */
  enum Kind {
    EXEC("error executing command in container: "),
    ATTACH("error attaching to container: ");

    final String errorPrefix;

    Kind(String errorPrefix) {
      this.errorPrefix = errorPrefix;
    }
  }

  private RemoteCommand() {}

  /** Starts the command on a virtual thread of its own and returns at once. */
  static void start(
      Kind kind,
      String what,
      RemoteCommandStreams client,
      Function<StreamIo, StreamHandle> starter) {
    Thread.ofVirtual().name("remote-command").start(() -> run(kind, what, client, starter));
  }

  /** Runs the command to its end on the calling thread. */
  static void run(
      Kind kind,
      String what,
      RemoteCommandStreams client,
      Function<StreamIo, StreamHandle> starter) {
    StreamHandle handle;
    try {
      handle = starter.apply(client.io());
    } catch (RuntimeError | IllegalArgumentException e) {
      log.info("Streaming: {} failed: {}", what, e.getMessage());
      client.finish(ExecStatus.internalError(kind.errorPrefix + e.getMessage()));
      return;
    }
    client.onResize(handle::resize);
    client.gone().then(() -> Thread.ofVirtual().name("remote-command-close").start(handle::close));
    try {
      int code = handle.await();
      log.debug("Streaming: {} ended with {}", what, code);
      client.finish(code > 0 ? ExecStatus.nonZeroExit(code) : ExecStatus.SUCCESS);
    } catch (RuntimeError e) {
      log.info("Streaming: {} failed: {}", what, e.getMessage());
      client.finish(ExecStatus.internalError(kind.errorPrefix + e.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      handle.close();
      client.finish(ExecStatus.internalError(kind.errorPrefix + "interrupted"));
    }
  }
}
