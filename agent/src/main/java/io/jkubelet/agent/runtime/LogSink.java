package io.jkubelet.agent.runtime;

/**
 * Where {@link Runtime#containerLogs} delivers a container's output: chunks in order, then one call
 * of {@link #end}. Called from the runtime's own thread; must not block for long.
 */
public interface LogSink {
  /** Output bytes (stdout and stderr interleaved as written). */
  void output(byte[] bytes);

  /**
   * Nothing more is at hand for now (the runtime would wait for the container's next output): a
   * sink that gathers small chunks sends what it holds. By default nothing.
   */
  default void flush() {}

  /** The output ended: read to its end, the container exited (follow), or an error (non-null). */
  void end(Throwable error);
}
