package io.jkubelet.agent.prober;

/**
 * What the probes say of one pod's running containers, for its status: the {@code ready} and {@code
 * started} flags, and through them the ContainersReady and Ready conditions.
 */
public interface ContainerHealth {
  /** Whether the running container passes its readiness probe (true when it has none). */
  boolean ready(String container, String containerId);

  /** Whether the running container passed its startup probe (true when it has none). */
  boolean started(String container, String containerId);

  /** A pod without probes: every running container is ready and started. */
  ContainerHealth NO_PROBES = fixed(true, true);

  /** The same answers for every running container. */
  static ContainerHealth fixed(boolean ready, boolean started) {
    return new ContainerHealth() {
      @Override
      public boolean ready(String container, String containerId) {
        return ready;
      }

      @Override
      public boolean started(String container, String containerId) {
        return started;
      }
    };
  }
}
