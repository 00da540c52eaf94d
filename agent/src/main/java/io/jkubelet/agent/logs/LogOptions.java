package io.jkubelet.agent.logs;

import io.jkubelet.agent.runtime.LogRequest;
import io.jkubelet.agent.util.Failure;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The query of {@code /containerLogs} (v1 PodLogOptions): {@code follow}, {@code previous}, {@code
 * timestamps}, {@code tailLines} (or the legacy {@code tail}, where {@code all} means no limit),
 * {@code sinceSeconds}, {@code sinceTime} and {@code limitBytes}.
 */
public record LogOptions(
    boolean follow,
    boolean previous,
    boolean timestamps,
    OptionalLong tailLines,
    OptionalLong sinceSeconds,
    Optional<Instant> sinceTime,
    OptionalLong limitBytes) {

  /** A query that cannot be decoded (400) or is not valid (422). */
  public static final class Invalid extends Failure {
    Invalid(int status, String message) {
      super(status, message);
    }

    /** The HTTP status upstream answers with. */
    public int status() {
      return detail();
    }
  }

  /**
   * Decodes and validates the query as upstream does: a value that does not parse is 400 {@code
   * {"message": "Unable to decode query."}}; a negative {@code tailLines}, a {@code limitBytes} or
   * {@code sinceSeconds} under 1, or both since fields, is 422 {@code {"message": "Invalid
   * request."}}.
   */
  public static LogOptions parse(Map<String, List<String>> query) throws Invalid {
    try {
      String tail = first(query, "tail");
      String tailLines = first(query, "tailLines");
      if (tail != null && !tail.isEmpty()) {
        tailLines = tail.equals("all") ? null : tail;
      }
      LogOptions o =
          new LogOptions(
              bool(first(query, "follow")),
              bool(first(query, "previous")),
              bool(first(query, "timestamps")),
              number(tailLines),
              number(first(query, "sinceSeconds")),
              time(first(query, "sinceTime")),
              number(first(query, "limitBytes")));
      o.validate();
      return o;
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new Invalid(400, "{\"message\": \"Unable to decode query.\"}");
    }
  }

  private void validate() throws Invalid {
    boolean bad =
        (tailLines.isPresent() && tailLines.getAsLong() < 0)
            || (limitBytes.isPresent() && limitBytes.getAsLong() < 1)
            || (sinceSeconds.isPresent() && sinceTime.isPresent())
            || (sinceSeconds.isPresent() && sinceSeconds.getAsLong() < 1);
    if (bad) {
      throw new Invalid(422, "{\"message\": \"Invalid request.\"}");
    }
  }

  /** The runtime request: since is {@code sinceTime}, or now minus {@code sinceSeconds}. */
  public LogRequest request(Clock clock) {
    Optional<Instant> since =
        sinceTime.isPresent()
            ? sinceTime
            : sinceSeconds.isPresent()
                ? Optional.of(clock.instant().minusSeconds(sinceSeconds.getAsLong()))
                : Optional.empty();
    return new LogRequest(follow && !previous, tailLines, since, timestamps);
  }

  private static String first(Map<String, List<String>> q, String name) {
    List<String> v = q.get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  private static boolean bool(String v) {
    if (v == null || v.isEmpty()) {
      return false;
    }
    return switch (v) {
      case "1", "t", "T", "true", "TRUE", "True" -> true;
      case "0", "f", "F", "false", "FALSE", "False" -> false;
      default -> throw new NumberFormatException(v);
    };
  }

  private static OptionalLong number(String v) {
    return v == null || v.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(v));
  }

  private static Optional<Instant> time(String v) {
    return v == null || v.isEmpty() ? Optional.empty() : Optional.of(Instant.parse(v));
  }
}
