package io.jkubelet.agent.server.auth;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Authenticates a request from its {@link Credentials}, as upstream's kubelet chain does: a
 * verified client certificate (CN is the user, O the groups), else a bearer token through the
 * {@link TokenReviewer} (a token it does not accept is refused, never anonymous), else the
 * anonymous user when allowed. Every authenticated subject but the anonymous one also gets the
 * group {@code system:authenticated}.
 *
 * <p>Thread-safe when its token reviewer is. May block (a TokenReview call): never call it on a
 * Netty event loop.
 */
public final class Authenticator {
  private final boolean anonymous;
  private final Optional<TokenReviewer> tokens;

  /**
   * @param anonymous whether a request without credentials is {@link Subject#ANONYMOUS}
   * @param tokens the token reviewer; empty when the token webhook is off
   */
  public Authenticator(boolean anonymous, Optional<TokenReviewer> tokens) {
    this.anonymous = anonymous;
    this.tokens = tokens;
  }

  public Authentication authenticate(Credentials c) {
    if (!c.peerChain().isEmpty()) {
      return new Authentication.Authenticated(X509Subjects.of(c.peerChain().get(0)));
    }
    if (c.bearerToken().isPresent() && tokens.isPresent()) {
      Optional<Subject> s = tokens.get().review(c.bearerToken().get());
      if (s.isEmpty()) {
        return new Authentication.Refused("invalid bearer token");
      }
      return new Authentication.Authenticated(authenticated(s.get()));
    }
    if (anonymous) {
      return new Authentication.Authenticated(Subject.ANONYMOUS);
    }
    return new Authentication.Refused("no credentials and anonymous requests are not allowed");
  }

  static Subject authenticated(Subject s) {
    if (s.groups().contains("system:authenticated")) {
      return s;
    }
    List<String> groups = new ArrayList<>(s.groups());
    groups.add("system:authenticated");
    return new Subject(s.name(), groups);
  }
}
