package io.jkubelet.agent.runtime;

import io.jkubelet.agent.util.RuntimeFailure;

/** A failed runtime call. The kind tells callers how to report it and whether to retry. */
public final class RuntimeError extends RuntimeFailure {

  /** What failed. */
  public enum Kind {
    /** The engine did not answer or answered with a server error. */
    UNAVAILABLE,
    /** The referenced container, sandbox or image does not exist. */
    NOT_FOUND,
    /** The image could not be pulled. */
    IMAGE_PULL,
    /** The container could not be created (a bad spec, a name conflict...). */
    CREATE,
    /** The container was created but could not be started. */
    START,
    /** Anything else. */
    OTHER
  }

  public RuntimeError(Kind kind, String message) {
    super(kind, message);
  }

  public Kind kind() {
    return detail();
  }
}
