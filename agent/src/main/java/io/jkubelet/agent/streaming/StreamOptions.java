package io.jkubelet.agent.streaming;

import java.util.List;
import java.util.Map;

/**
 * Which streams a remote command has, from the query as the API server sends it ({@code
 * input=1&output=1&error=1&tty=1}: upstream's {@code ExecStdinParam} and its siblings), as
 * upstream's {@code remotecommand.NewOptions}: a TTY merges stderr into stdout, so {@code stderr}
 * is dropped with one; at least one of the three is required.
 */
public record StreamOptions(boolean stdin, boolean stdout, boolean stderr, boolean tty) {

  /** Upstream's message for a request without stdin, stdout or stderr. */
  public static final String NONE_REQUESTED =
      "you must specify at least 1 of stdin, stdout, stderr";

  public StreamOptions {
    if (tty && stderr) {
      stderr = false;
    }
    if (!stdin && !stdout && !stderr) {
      throw new IllegalArgumentException(NONE_REQUESTED);
    }
  }

  /** Reads the options from decoded query parameters; throws with {@link #NONE_REQUESTED}. */
  public static StreamOptions fromQuery(Map<String, List<String>> query) {
    return new StreamOptions(
        on(query, "input"), on(query, "output"), on(query, "error"), on(query, "tty"));
  }

  private static boolean on(Map<String, List<String>> query, String name) {
    List<String> values = query.get(name);
    return values != null && !values.isEmpty() && "1".equals(values.get(0));
  }
}
