package io.jkubelet.agent.nodeshutdown;

/** A call to logind failed, or there is no logind to call. */
public final class LogindException extends RuntimeException {
  public LogindException(String message) {
    super(message);
  }
}
