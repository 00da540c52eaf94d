package io.jkubelet.agent.metrics;

import io.jkubelet.agent.gc.ContainerGc;
import java.util.List;
import java.util.function.Supplier;

/**
 * Container garbage collection's counts, read from the collector at each scrape. Upstream v1.20 has
 * no container GC metric, so the names are jkubelet's, as {@link ImageGcCollector}'s:
 *
 * <ul>
 *   <li>{@code jkubelet_container_gc_removed_containers_total}: dead containers removed;
 *   <li>{@code jkubelet_container_gc_removed_sandboxes_total}: sandboxes removed;
 *   <li>{@code jkubelet_container_gc_failed_removals_total}: removals that failed.
 * </ul>
 */
public record ContainerGcCollector(Supplier<ContainerGc.Stats> stats) implements Collector {

  @Override
  public List<Family> collect() {
    ContainerGc.Stats s = stats.get();
    return List.of(
        Family.counter(
                "jkubelet_container_gc_removed_containers_total",
                "Dead containers removed by container GC.")
            .add(s.removedContainers()),
        Family.counter(
                "jkubelet_container_gc_removed_sandboxes_total",
                "Pod sandboxes removed by container GC.")
            .add(s.removedSandboxes()),
        Family.counter(
                "jkubelet_container_gc_failed_removals_total",
                "Container and sandbox removals by container GC that the engine refused or that"
                    + " failed.")
            .add(s.failedRemovals()));
  }
}
