package io.jkubelet.agent.metrics;

import io.jkubelet.agent.pleg.GenericPleg;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerSummary;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Listens to the PLEG's relists, as upstream's {@code GenericPLEG.relist} records: {@code
 * kubelet_pleg_relist_duration_seconds}, and from what each relist listed {@code
 * kubelet_running_pods} (pods with a running sandbox) and {@code kubelet_running_containers} by
 * {@code container_state} (created, running, exited, unknown; sandboxes not counted). Unlike
 * upstream, a state no container is in any more reads 0 rather than its last count.
 *
 * <p>Called on the PLEG's thread only.
 */
public final class PlegMetrics implements GenericPleg.RelistListener {
  private final KubeletMetrics metrics;

  public PlegMetrics(KubeletMetrics metrics) {
    this.metrics = metrics;
    for (ContainerState s : ContainerState.values()) {
      metrics.runningContainers.labelValues(label(s)).set(0);
    }
    metrics.runningPods.set(0);
  }

  @Override
  public void relisted(Instant start, Instant end, List<ContainerSummary> listed) {
    metrics.plegRelistDuration.observe(KubeletMetrics.seconds(start, end));
    if (listed == null) {
      return;
    }
    EnumMap<ContainerState, Integer> byState = new EnumMap<>(ContainerState.class);
    Set<String> runningSandboxes = new HashSet<>();
    for (ContainerSummary c : listed) {
      if (c.sandbox()) {
        if (c.state() == ContainerState.RUNNING) {
          runningSandboxes.add(c.pod().uid());
        }
      } else {
        byState.merge(c.state(), 1, Integer::sum);
      }
    }
    for (ContainerState s : ContainerState.values()) {
      metrics.runningContainers.labelValues(label(s)).set(byState.getOrDefault(s, 0));
    }
    metrics.runningPods.set(runningSandboxes.size());
  }

  private static String label(ContainerState s) {
    return s.name().toLowerCase(Locale.ROOT);
  }
}
