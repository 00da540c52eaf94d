package io.jkubelet.agent.streaming;

import java.util.List;
import java.util.Map;

/**
 * Which streams a remote command has, from the query ({@code stdin=1&stdout=1&stderr=1&tty=1}), as
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
        on(query, "stdin"), on(query, "stdout"), on(query, "stderr"), on(query, "tty"));
  }

  private static boolean on(Map<String, List<String>> query, String name) {
    List<String> values = query.get(name);
    return values != null && !values.isEmpty() && "1".equals(values.get(0));
  }
}
