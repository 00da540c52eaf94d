package io.jkubelet.agent.runtime;

/**
 * A running interactive exec, attach or port-forward, as the runtime started it. Thread-safe.
 *
 * <p>{@link #close} may be called at any time, from any thread, and more than once: it is how a
 * caller whose client went away makes the runtime let go of everything the stream holds (the
 * engine's connection, threads, a relay process, and for an exec a process that still runs).
 */
public interface StreamHandle extends AutoCloseable {

  /** What an attach or port-forward reports from {@link #await}: it has no exit code. */
  int NO_EXIT_CODE = -1;

  /**
   * Waits until the streams end. For an exec, returns the command's exit code (or throws {@link
   * RuntimeError} if the runtime could not tell it); for an attach or a port-forward, {@link
   * #NO_EXIT_CODE}. After {@link #close}, returns promptly.
   */
  int await() throws InterruptedException;

  /** Resizes the TTY; ignored without one, or once the stream ended. */
  void resize(TerminalSize size);

  /** Ends the stream at once and releases what it holds; see the class comment. */
  @Override
  void close();
}
