package io.jkubelet.agent.events;

/** A failed event write: {@code code} is the HTTP status, or 0 when the server did not answer. */
public final class EventWriteException extends Exception {
  private final int code;

  private EventWriteException(int code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  public static EventWriteException of(int code, String message) {
    return new EventWriteException(code, message, null);
  }

  public static EventWriteException causedBy(int code, String message, Throwable cause) {
    return new EventWriteException(code, message, cause);
  }

  public int code() {
    return code;
  }

  /** The server answered, and the answer says the request itself is wrong: do not retry. */
  public boolean rejected() {
    return code >= 400 && code < 500 && code != 429;
  }
}
