package io.jkubelet.agent.server.auth;

/**
 * The outcome of authenticating a request: who it is, or that it is refused (401).
 *
 * <p>Handled with an exhaustive switch by the server's filter.
 */
public sealed interface Authentication {
  /** The request is from this subject. */
  record Authenticated(Subject subject) implements Authentication {}

  /** The request is refused with 401; the reason is logged, never sent. */
  record Refused(String reason) implements Authentication {}
}
