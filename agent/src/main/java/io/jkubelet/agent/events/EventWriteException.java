package io.jkubelet.agent.events;

import io.jkubelet.agent.util.Failure;

/** A failed event write: {@code code} is the HTTP status, or 0 when the server did not answer. */
public final class EventWriteException extends Failure {

  public EventWriteException(int code, String message) {
    super(code, message);
  }

  public int code() {
    return detail();
  }

  /** The server answered, and the answer says the request itself is wrong: do not retry. */
  public boolean rejected() {
    return code() >= 400 && code() < 500 && code() != 429;
  }
}
