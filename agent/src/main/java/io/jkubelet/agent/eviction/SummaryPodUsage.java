package io.jkubelet.agent.eviction;

import io.jkubelet.agent.stats.Summary;
import io.jkubelet.agent.stats.SummaryProvider;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Each pod's usage from the stats summary, as upstream's eviction manager reads it: the pod's and
 * each container's memory working set, the pod's ephemeral storage (volumes, logs and writable
 * layers) with each container's layer and logs, its processes. A pod with no figure is left out,
 * and ranks first, as upstream.
 */
public record SummaryPodUsage(SummaryProvider summary) implements Readers.PodUsageReader {
  @Override
  public Map<String, PodUsage> read(Duration diskMaxAge) {
    Map<String, PodUsage> out = new HashMap<>();
    Summary s = diskMaxAge.equals(ANY_DISK_AGE) ? summary.summary() : summary.fresh(diskMaxAge);
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
      out.put(
          p.podRef().uid(),
          new PodUsage(
              p.memory().workingSetBytes(),
              containers,
              disk(p),
              p.processStats() == null || p.processStats().processCount() == null
                  ? 0
                  : p.processStats().processCount()));
    }
    return out;
  }

  private static PodUsage.Disk disk(Summary.PodStats p) {
    long layers = 0;
    long layerInodes = 0;
    Map<String, PodUsage.ContainerDisk> containers = new HashMap<>();
    if (p.containers() != null) {
      for (Summary.ContainerStats c : p.containers()) {
        layers += used(c.rootfs());
        layerInodes += inodes(c.rootfs());
        containers.put(
            c.name(),
            new PodUsage.ContainerDisk(
                c.rootfs() == null ? null : used(c.rootfs()),
                c.logs() == null ? null : used(c.logs())));
      }
    }
    Map<String, Long> volumes = new HashMap<>();
    if (p.volume() != null) {
      for (Summary.VolumeStats v : p.volume()) {
        if (v.name() != null && v.fs() != null && v.fs().usedBytes() != null) {
          volumes.put(v.name(), v.fs().usedBytes());
        }
      }
    }
    Summary.FsStats all = p.ephemeralStorage();
    return new PodUsage.Disk(used(all), inodes(all), layers, layerInodes, containers, volumes);
  }

  private static long used(Summary.FsStats fs) {
    return fs == null || fs.usedBytes() == null ? 0 : fs.usedBytes();
  }

  private static long inodes(Summary.FsStats fs) {
    return fs == null || fs.inodesUsed() == null ? 0 : fs.inodesUsed();
  }
}
