package io.jkubelet.agent.podconfig;

import java.util.Locale;
import java.util.Optional;

/**
 * Where a desired pod comes from, as upstream's {@code kubetypes.FileSource}, {@code HTTPSource}
 * and {@code ApiserverSource}. Each has the value the {@code kubernetes.io/config.source}
 * annotation carries, which is also how logs and events name it.
 */
public enum Source {
  /** The static pod manifest directory. */
  FILE,
  /** The static pod manifest URL. */
  HTTP,
  /** The pods the API server binds to this node. */
  API;

  /** The value of the {@code kubernetes.io/config.source} annotation: the name in lower case. */
  public String annotation() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The source an annotation value names, or empty when it names none. */
  public static Optional<Source> fromAnnotation(String value) {
    for (Source s : values()) {
      if (s.annotation().equals(value)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }
}
