package io.jkubelet.agent.credentials;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds the credentials to pull an image with, as upstream's {@code DockerKeyring}: every one that
 * matches the image's registry, in the order to try them. Implementations are thread-safe.
 */
@FunctionalInterface
public interface Keyring {

  /**
   * The credentials for a repository, normalized as {@link ImageNames#repository} makes it ({@code
   * docker.io/library/busybox}, {@code registry:5000/team/app}); empty when none matches, and the
   * pull then goes without.
   */
  List<AuthConfig> lookup(String repository);

  /** No credentials at all. */
  Keyring EMPTY = repository -> List.of();

  /**
   * Every credential of the first keyring, then of the second..., as upstream's {@code
   * UnionDockerKeyring}.
   */
  static Keyring union(List<Keyring> keyrings) {
    List<Keyring> copy = List.copyOf(keyrings);
    return repository -> {
      List<AuthConfig> out = new ArrayList<>();
      for (Keyring k : copy) {
        out.addAll(k.lookup(repository));
      }
      return out;
    };
  }
}
