package io.jkubelet.agent.eviction;

import io.jkubelet.agent.stats.Summary;
import io.jkubelet.agent.stats.SummaryProvider;
import java.util.HashMap;
import java.util.Map;

/**
 * Each pod's usage from the stats summary, as upstream's eviction manager reads it: the pod's and
 * each container's memory working set, the pod's ephemeral storage (volumes and logs), its
 * processes. A pod with no figure is left out, and ranks first, as upstream.
 */
public final class SummaryPodUsage implements Readers.PodUsageReader {
  private final SummaryProvider summary;

  public SummaryPodUsage(SummaryProvider summary) {
    this.summary = summary;
  }

  @Override
  public Map<String, PodUsage> read() {
    Map<String, PodUsage> out = new HashMap<>();
    Summary s = summary.summary();
    if (s == null || s.pods() == null) {
      return out;
    }
    for (Summary.PodStats p : s.pods()) {
      if (p.podRef() == null || p.memory() == null || p.memory().workingSetBytes() == null) {
        continue;
      }
      Map<String, Long> containers = new HashMap<>();
      if (p.containers() != null) {
        for (Summary.ContainerStats c : p.containers()) {
          if (c.memory() != null && c.memory().workingSetBytes() != null) {
            containers.put(c.name(), c.memory().workingSetBytes());
          }
        }
      }
      Summary.FsStats fs = p.ephemeralStorage();
      out.put(
          p.podRef().uid(),
          new PodUsage(
              p.memory().workingSetBytes(),
              containers,
              fs == null || fs.usedBytes() == null ? 0 : fs.usedBytes(),
              fs == null || fs.inodesUsed() == null ? 0 : fs.inodesUsed(),
              p.processStats() == null || p.processStats().processCount() == null
                  ? 0
                  : p.processStats().processCount()));
    }
    return out;
  }
}
