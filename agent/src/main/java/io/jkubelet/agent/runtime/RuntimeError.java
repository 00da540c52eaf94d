package io.jkubelet.agent.runtime;

/** A failed runtime call. The kind tells callers how to report it and whether to retry. */
public final class RuntimeError extends RuntimeException {

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

  private final Kind kind;

  private RuntimeError(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public static RuntimeError of(Kind kind, String message) {
    return new RuntimeError(kind, message, null);
  }

  public static RuntimeError causedBy(Kind kind, String message, Throwable cause) {
    return new RuntimeError(kind, message, cause);
  }

  public Kind kind() {
    return kind;
  }
}
