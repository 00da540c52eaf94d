package io.jkubelet.agent.stats;

import io.jkubelet.agent.logs.PodLogPaths;
import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Where the summary reads from.
 *
 * @param nodeName the node's name, as the summary reports it
 * @param memoryCapacityBytes the node's memory, for {@code availableBytes} (0: {@code MemTotal})
 * @param rootDir jkubelet's root directory: its file system is the node's {@code fs}
 * @param imageFsDir the engine's root directory (images and container layers): its file system is
 *     {@code runtime.imageFs}; asked until it answers, and while it answers null the root
 *     directory's is used
 * @param podLogs where containers' log files are, for each container's {@code logs}; null for none
 * @param host where the host's cgroup hierarchy and proc are mounted
 * @param ttl how long a computed summary is served again: scrapes that come together share one
 *     reading of the files
 * @param podCgroups where the pods' cgroups are, with {@code cgroupsPerQOS}
 */
public record StatsOptions(
    String nodeName,
    long memoryCapacityBytes,
    Path rootDir,
    Supplier<Path> imageFsDir,
    @Nullable PodLogPaths podLogs,
    Host host,
    Duration ttl,
    PodCgroups podCgroups) {

  public StatsOptions {
    Records.requireNonNull(
        StatsOptions.class, nodeName, rootDir, imageFsDir, host, ttl, podCgroups);
    if (memoryCapacityBytes < 0 || ttl.isNegative()) {
      throw new IllegalArgumentException("negative memory capacity or TTL");
    }
  }

  /**
   * Where the host's files are; tests point these at fixtures.
   *
   * @param cgroupRoot where the cgroup hierarchy is mounted
   * @param procRoot where proc is mounted
   */
  public record Host(Path cgroupRoot, Path procRoot) {
    /** This host's: cgroups at {@code /sys/fs/cgroup}, proc at {@code /proc}. */
    public static final Host THIS = new Host(Path.of("/sys/fs/cgroup"), Path.of("/proc"));

    public Host {
      Records.requireNonNull(Host.class, cgroupRoot, procRoot);
    }
  }

  /**
   * Where the pods' cgroups are.
   *
   * @param byUid by pod uid, where below each hierarchy the pod's cgroup may be (e.g. {@code
   *     kubepods/burstable/pod<uid>}): its containers are looked for in there as well as where
   *     Docker puts them by default
   * @param root where below each hierarchy {@code kubepods} is (e.g. {@code /kubepods}), the {@code
   *     pods} system container and the {@code allocatableMemory.available} signal; null without
   *     {@code cgroupsPerQOS}
   */
  public record PodCgroups(Function<String, List<String>> byUid, String root) {
    /** Containers only where Docker puts them by default; no {@code kubepods}. */
    public static final PodCgroups NONE = new PodCgroups(uid -> List.of(), null);

    public PodCgroups {
      Objects.requireNonNull(byUid, "byUid");
    }
  }

  /** The default TTL: shorter than any scrape interval worth having. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(1);

  /**
   * How old the node's reading may be before a summary reads it itself: the eviction manager reads
   * every second, so with it running the summary always shows its latest reading; without it (no
   * thresholds), a summary reads.
   */
  public static final Duration NODE_READING_MAX_AGE = Duration.ofSeconds(2);

  /** This host's: cgroups at {@code /sys/fs/cgroup}, proc at {@code /proc}, the default TTL. */
  public static StatsOptions host(
      String nodeName,
      long memoryCapacityBytes,
      Path rootDir,
      Supplier<Path> imageFsDir,
      PodLogPaths podLogs,
      Function<String, List<String>> podCgroups,
      String podCgroupRoot) {
    return new StatsOptions(
        nodeName,
        memoryCapacityBytes,
        rootDir,
        imageFsDir,
        podLogs,
        Host.THIS,
        DEFAULT_TTL,
        new PodCgroups(podCgroups, podCgroupRoot));
  }
}
