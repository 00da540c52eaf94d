package io.jkubelet.agent.gc;

import java.time.Duration;
import java.util.Objects;

/**
 * Upstream's container {@code GCPolicy}, checked as {@code NewContainerGC} checks it.
 *
 * @param minAge how old a dead container must be before it is removed; zero for no limit
 * @param maxPerPodContainer the dead containers kept per (pod, container name); negative for no
 *     limit
 * @param maxContainers the dead containers kept on the node; negative for no limit
 */
public record ContainerGcPolicy(Duration minAge, int maxPerPodContainer, int maxContainers) {
  /** Upstream's defaults: no minimum age, one dead container per container, no global cap. */
  public static final ContainerGcPolicy DEFAULTS = new ContainerGcPolicy(Duration.ZERO, 1, -1);

  /** {@code deleteAllUnusedContainers}: every dead container, whatever its age. */
  static final ContainerGcPolicy ALL = new ContainerGcPolicy(Duration.ZERO, 0, -1);

  public ContainerGcPolicy {
    Objects.requireNonNull(minAge, "minAge");
    if (minAge.isNegative()) {
      throw new IllegalArgumentException("invalid minimum garbage collection age: " + minAge);
    }
  }

  /**
   * The dead containers of one name a container's death leaves in its pod (upstream's {@code
   * podContainerDeletor}: the per-container limit, but at least one, whose status is the last
   * state).
   */
  public int keptOnDeath() {
    return Math.max(maxPerPodContainer, 1);
  }
}
