package io.jkubelet.agent.server.auth;

import java.util.Optional;

/** Reviews a bearer token: the subject it stands for, or empty when it is not valid. */
@FunctionalInterface
public interface TokenReviewer {
  /**
   * @throws RuntimeException when the review could not be made (the request is then refused)
   */
  Optional<Subject> review(String token);
}
