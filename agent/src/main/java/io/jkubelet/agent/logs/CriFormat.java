package io.jkubelet.agent.logs;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The CRI log line: {@code <RFC3339Nano> stdout|stderr F|P <content>\n}, F for a full line, P for a
 * part of a longer one. Written with nine fraction digits, as upstream's {@code RFC3339NanoFixed};
 * read leniently (any number of digits).
 */
public final class CriFormat {
  private static final DateTimeFormatter FIXED =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'").withZone(ZoneOffset.UTC);

  private CriFormat() {}

  /** A parsed line. */
  public record Line(Instant time, String stream, boolean partial, byte[] content) {}

  /** One line; {@code content} holds no newline. */
  public static byte[] format(Instant time, String stream, boolean partial, byte[] content) {
    byte[] prefix =
        (FIXED.format(time) + " " + stream + " " + (partial ? "P " : "F "))
            .getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[prefix.length + content.length + 1];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    System.arraycopy(content, 0, out, prefix.length, content.length);
    out[out.length - 1] = '\n';
    return out;
  }

  /** Parses a line without its newline; empty when it is not in the CRI format. */
  public static Optional<Line> parse(String line) {
    int a = line.indexOf(' ');
    int b = a < 0 ? -1 : line.indexOf(' ', a + 1);
    int c = b < 0 ? -1 : line.indexOf(' ', b + 1);
    if (c < 0) {
      return Optional.empty();
    }
    String stream = line.substring(a + 1, b);
    String tag = line.substring(b + 1, c);
    if (!(stream.equals("stdout") || stream.equals("stderr"))
        || !(tag.equals("F") || tag.equals("P"))) {
      return Optional.empty();
    }
    try {
      Instant t = Instant.parse(line.substring(0, a));
      return Optional.of(
          new Line(
              t, stream, tag.equals("P"), line.substring(c + 1).getBytes(StandardCharsets.UTF_8)));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
