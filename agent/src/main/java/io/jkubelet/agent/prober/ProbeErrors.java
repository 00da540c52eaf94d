package io.jkubelet.agent.prober;

import io.jkubelet.agent.util.Errors;
import java.util.Locale;

/** How the probers word what went wrong: as upstream's Go client words it, where it can. */
final class ProbeErrors {
  private ProbeErrors() {}

  /** Why a connection did not open, as Go words it: {@code connection refused}, or the message. */
  static String connect(Throwable e) {
    String msg = describe(e).toLowerCase(Locale.ROOT);
    return msg.contains("refused") ? "connection refused" : msg;
  }

  /**
   * An exception's message; when it has none (a client's wrappers), its root cause's message; else
   * the class of the exception.
   */
  static String describe(Throwable e) {
    if (e.getMessage() != null && !e.getMessage().isBlank()) {
      return e.getMessage();
    }
    Throwable root = Errors.rootCause(e);
    if (root.getMessage() != null && !root.getMessage().isBlank()) {
      return root.getMessage();
    }
    return e.getClass().getSimpleName();
  }
}
