package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.jkubelet.agent.util.Canonical;

/**
 * The hash of a container spec, stored on the container as {@code io.kubernetes.container.hash}: a
 * running container whose hash differs from its spec's is restarted.
 */
public final class ContainerHash {
  private ContainerHash() {}

  public static String of(Container c) {
    return Canonical.fnv32a(c);
  }
}
