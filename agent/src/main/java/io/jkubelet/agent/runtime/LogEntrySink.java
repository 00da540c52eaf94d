package io.jkubelet.agent.runtime;

/**
 * Where {@link Runtime#followLogEntries} delivers a container's output: entries in order, then at
 * most one call of {@link #end}. Called from the runtime's reading thread, one call at a time.
 */
public interface LogEntrySink {
  void entry(LogEntry entry);

  /** The output ended: the container stopped, or an error (non-null) broke the stream. */
  void end(Throwable error);
}
