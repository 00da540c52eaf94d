package io.jkubelet.agent.runtime;

import io.jkubelet.config.Records;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What part of a container's output to read.
 *
 * @param follow keep streaming until the container exits
 * @param tailLines only the last N lines; empty: all
 * @param since only output at or after this time; empty: from the start
 * @param timestamps prefix each line with its RFC 3339 (nanosecond) time and a space
 */
public record LogRequest(
    boolean follow, OptionalLong tailLines, Optional<Instant> since, boolean timestamps) {
  public LogRequest {
    Records.requireNonNull(LogRequest.class, tailLines, since);
  }
}
