package io.jkubelet.agent.stats;

import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.stats.Summary.ContainerStats;
import io.jkubelet.agent.stats.Summary.FsStats;
import io.jkubelet.agent.stats.Summary.VolumeStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The disk a pod uses, measured as upstream's {@code du} metrics at most once per TTL ({@link
 * DiskUsage}): its volumes under {@code <root-dir>/pods/<uid>/volumes} (every kind but hostPath),
 * each container's log files, and each container's writable layer ({@link WritableLayers}, the
 * container's {@code rootfs}); and their sum, the pod's {@code ephemeral-storage}, as upstream's
 * {@code calcEphemeralStorage}.
 *
 * <p>Not thread-safe: one summary at a time uses it, between {@link #begin()} and {@link #end()}.
 */
final class PodStorage {
  private static final Logger log = LoggerFactory.getLogger(PodStorage.class);

  private final StatsOptions options;
  private final DiskUsage disk;
  private final WritableLayers layers;
  private final Set<Path> liveDirs = new HashSet<>();
  private final Set<String> liveContainers = new HashSet<>();
  private Duration maxAge;

  PodStorage(StatsOptions options, Clock clock, Duration ttl) {
    this.options = options;
    this.disk = new DiskUsage(clock, ttl);
    this.layers = new WritableLayers(new EngineRoot(options.imageFsDir(), clock));
    this.maxAge = ttl;
  }

  /**
   * A summary starts, with measurements at most {@code maxAge} old: what it measures is what is
   * kept.
   */
  void begin(Duration maxAge) {
    this.maxAge = maxAge;
    liveDirs.clear();
    liveContainers.clear();
  }

  /** A summary ended: measurements of what it no longer saw are forgotten. */
  void end() {
    disk.retain(liveDirs);
    layers.retain(liveContainers);
  }

  /** The pod's volumes, by name. */
  List<VolumeStats> volumes(String uid) {
    Path root = options.rootDir().resolve("pods").resolve(uid).resolve("volumes");
    List<VolumeStats> out = new ArrayList<>();
    try (var plugins = Files.newDirectoryStream(root)) {
      for (Path plugin : plugins) {
        try (var names = Files.newDirectoryStream(plugin, Files::isDirectory)) {
          for (Path dir : names) {
            liveDirs.add(dir);
            disk.of(dir, maxAge).ifPresent(u -> out.add(volume(dir, u)));
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      log.trace("stats: no volumes under {}: {}", root, e.toString());
    }
    out.sort(java.util.Comparator.comparing(VolumeStats::name));
    return out;
  }

  private static VolumeStats volume(Path dir, DiskUsage.Usage u) {
    FsStats m = measured(dir, u);
    return new VolumeStats(
        new FsStats(
            m.time(),
            m.availableBytes(),
            m.capacityBytes(),
            m.usedBytes(),
            null,
            null,
            m.inodesUsed()),
        dir.getFileName().toString());
  }

  /** A container's log files (every instance's); null without them. */
  FsStats logs(PodRef pod, String container) {
    if (options.podLogs() == null) {
      return null;
    }
    Path dir = options.podLogs().podDir(pod.namespace(), pod.name(), pod.uid()).resolve(container);
    return Files.isDirectory(dir) ? measure(dir) : null;
  }

  /** What a container wrote to its own file system (its writable layer); null when unknown. */
  FsStats rootfs(String containerId) {
    liveContainers.add(containerId);
    return layers.of(containerId).map(this::measure).orElse(null);
  }

  private FsStats measure(Path dir) {
    liveDirs.add(dir);
    return disk.of(dir, maxAge).map(u -> measured(dir, u)).orElse(null);
  }

  /** A measured directory: its usage, on its file system's capacity and free space. */
  private static FsStats measured(Path dir, DiskUsage.Usage u) {
    String time = CgroupSummaryProvider.time(u.at());
    FsStats fs = CgroupSummaryProvider.fs(dir, time);
    return new FsStats(
        time,
        fs == null ? null : fs.availableBytes(),
        fs == null ? null : fs.capacityBytes(),
        u.bytes(),
        null,
        null,
        u.inodes());
  }

  /**
   * The pod's ephemeral storage, as upstream's {@code calcEphemeralStorage}: on the root dir's file
   * system, the bytes and inodes of its volumes and its containers' writable layers and logs.
   */
  FsStats ephemeral(List<VolumeStats> volumes, List<ContainerStats> containers, String time) {
    FsStats root = CgroupSummaryProvider.fs(options.rootDir(), time);
    if (root == null) {
      return null;
    }
    long used = volumes.stream().mapToLong(v -> v.fs().usedBytes()).sum();
    long inodes = volumes.stream().mapToLong(v -> v.fs().inodesUsed()).sum();
    for (ContainerStats c : containers) {
      for (FsStats f : new FsStats[] {c.rootfs(), c.logs()}) {
        if (f != null) {
          used += f.usedBytes() == null ? 0 : f.usedBytes();
          inodes += f.inodesUsed() == null ? 0 : f.inodesUsed();
        }
      }
    }
    return new FsStats(time, root.availableBytes(), root.capacityBytes(), used, null, null, inodes);
  }
}
