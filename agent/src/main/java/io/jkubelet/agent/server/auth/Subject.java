package io.jkubelet.agent.server.auth;

import java.util.List;
import java.util.Objects;

/**
 * Who made a request: the user name and groups an authenticator found.
 *
 * @param name the user name, e.g. {@code system:anonymous} or a client certificate's CN
 * @param groups the user's groups, e.g. {@code system:authenticated}
 */
public record Subject(String name, List<String> groups) {
  /** The anonymous user, as upstream's anonymous authenticator names it. */
  public static final Subject ANONYMOUS =
      new Subject("system:anonymous", List.of("system:unauthenticated"));

  public Subject {
    Objects.requireNonNull(name, "name");
    groups = List.copyOf(groups);
  }
}
