package io.jkubelet.agent.metrics;

import io.jkubelet.agent.kuberuntime.OomEvents;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code kubelet_container_oom_kills_total{namespace,pod,container}}: the processes the OOM killer
 * killed in each container of the node's pods, main processes and children alike, read from {@link
 * OomEvents} at each scrape. Upstream v1.20 has no such series (cAdvisor's {@code
 * container_oom_events_total} came later, with other labels). A pod's series go when the pod does.
 */
public record OomKillCollector(Supplier<List<OomEvents.Count>> kills) implements Collector {

  @Override
  public List<Family> collect() {
    Family f =
        Family.counter(
            "kubelet_container_oom_kills_total",
            "Processes the OOM killer killed in a container, by namespace, pod and container.");
    for (OomEvents.Count c : kills.get()) {
      f.add(c.kills(), "container", c.container(), "namespace", c.namespace(), "pod", c.pod());
    }
    return List.of(f);
  }
}
