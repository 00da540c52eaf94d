package io.jkubelet.agent.gc;

/** Removes dead containers and sandboxes (upstream's ContainerGC). Thread-safe. */
public interface ContainerGarbageCollector {
  /**
   * Removes every dead container and sandbox regardless of the GC policy's age and count limits.
   */
  void deleteAllUnusedContainers() throws Exception;
}
