package io.jkubelet.agent.server.auth;

/**
 * Decides whether a subject may do what a request asks. Implementations: {@link #ALWAYS_ALLOW}, and
 * {@link WebhookAuthorizer} (SubjectAccessReview). May block: never call it on a Netty event loop.
 */
@FunctionalInterface
public interface Authorizer {
  /** Authorization mode AlwaysAllow. */
  Authorizer ALWAYS_ALLOW = (subject, attributes) -> true;

  /**
   * @throws RuntimeException when no decision could be made (the request then gets a 500)
   */
  boolean allowed(Subject subject, Attributes attributes);
}
