package io.jkubelet.agent.prober;

import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.util.GoQuote;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * What a failed attempt says beyond upstream's words, so that the {@code Unhealthy} event tells why
 * without a look at the container: an HTTP probe's status and the first {@value #BODY_BYTES} bytes
 * of its body, an exec probe's exit code and the last {@value #EXEC_LINES} lines of its output.
 * Upstream's text always comes first ({@code HTTP probe failed with statuscode: 500}, the command's
 * output), so that what matches upstream's events matches these.
 *
 * <p>Stateless.
 */
final class FailureDetail {
  /** The most of an HTTP body a failure quotes. */
  static final int BODY_BYTES = 256;

  /** The most lines of an exec probe's output a failure keeps: the last ones. */
  static final int EXEC_LINES = 5;

  /** The most characters of those lines: the last ones. */
  static final int EXEC_CHARS = 1024;

  private FailureDetail() {}

  /**
   * {@code HTTP probe failed with statuscode: 503, body: "..."}: upstream's words, then the body's
   * first bytes quoted as Go's {@code %q} would (a cut body ends with {@code ...}); no body part
   * for an empty body.
   */
  static String httpStatus(int status, String body) {
    String failure = "HTTP probe failed with statuscode: " + status;
    if (body == null || body.isEmpty()) {
      return failure;
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= BODY_BYTES) {
      return failure + ", body: " + GoQuote.quote(body);
    }
    return failure + ", body: " + GoQuote.quote(utf8Prefix(bytes, BODY_BYTES)) + "...";
  }

  /**
   * An exec attempt that failed: the last lines of its output, then its exit code ({@code ... (exit
   * code 1)}); {@code command exited with code 1} when it wrote nothing. A timed-out one is {@code
   * command timed out}, with its output when it wrote any.
   */
  static String exec(ExecResult r) {
    String output = lastLines(r.output());
    if (r.timedOut()) {
      return output.isEmpty() ? "command timed out" : "command timed out: " + output;
    }
    return output.isEmpty()
        ? "command exited with code " + r.exitCode()
        : output + " (exit code " + r.exitCode() + ")";
  }

  /**
   * The last {@value #EXEC_LINES} lines of {@code output}, trailing blank ones left out, at most
   * {@value #EXEC_CHARS} characters; a cut output starts with {@code ...}.
   */
  static String lastLines(String output) {
    String text = output == null ? "" : output.stripTrailing();
    if (text.isEmpty()) {
      return "";
    }
    List<String> lines = Arrays.asList(text.split("\r?\n", -1));
    boolean cut = lines.size() > EXEC_LINES;
    String kept =
        String.join("\n", cut ? lines.subList(lines.size() - EXEC_LINES, lines.size()) : lines);
    if (kept.length() > EXEC_CHARS) {
      kept = kept.substring(kept.length() - EXEC_CHARS);
      cut = true;
    }
    return cut ? "..." + kept : kept;
  }

  /**
   * The longest prefix of the UTF-8 {@code bytes} within {@code max} bytes that cuts no character.
   */
  static String utf8Prefix(byte[] bytes, int max) {
    int end = Math.min(max, bytes.length);
    while (end > 0 && end < bytes.length && (bytes[end] & 0xC0) == 0x80) {
      end--; // a continuation byte: the character began before
    }
    return new String(bytes, 0, end, StandardCharsets.UTF_8);
  }
}
