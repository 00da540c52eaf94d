package io.jkubelet.agent.runtime;

import io.jkubelet.config.Records;
import java.time.Instant;

/**
 * One message of a container's output as the runtime recorded it: a line with its newline, or the
 * part of a longer line the runtime split off (no newline at the end).
 *
 * @param time when the runtime read it
 * @param stream {@code "stdout"} or {@code "stderr"} (a TTY's output is {@code "stdout"})
 * @param content its bytes, with the newline if it ends a line
 */
public record LogEntry(Instant time, String stream, byte[] content) {
  public static final String STDOUT = "stdout";
  public static final String STDERR = "stderr";

  public LogEntry {
    Records.requireNonNull(LogEntry.class, time, stream, content);
  }

  /** Whether it ends with a newline (a full line, or the last part of one). */
  public boolean endsLine() {
    return content.length > 0 && content[content.length - 1] == '\n';
  }
}
