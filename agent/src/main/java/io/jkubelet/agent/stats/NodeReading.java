package io.jkubelet.agent.stats;

import java.time.Instant;
import java.util.Objects;

/**
 * One reading of what the node has left: the figures the eviction manager decides on, and that the
 * summary reports as its node's {@code memory}, {@code fs}, {@code runtime.imageFs}, {@code rlimit}
 * and the {@code pods} system container (upstream's {@code makeSignalObservations} reads the same
 * fields of its summary). Each part carries the instant it was read, at full precision (the
 * summary's JSON rounds it to the second, as {@code metav1.Time}); a part that could not be read is
 * null.
 *
 * @param memory the node's: {@code availableBytes} is the node's memory less the working set
 * @param pods the {@code kubepods} cgroup's: {@code availableBytes} is its limit less its working
 *     set, null without a limit; null without {@code cgroupsPerQOS}
 * @param fs the file system of the root directory ({@code nodefs})
 * @param imageFs the file system of the engine's root directory ({@code imagefs})
 * @param rlimit the process limit and the processes
 */
public record NodeReading(Memory memory, Memory pods, Fs fs, Fs imageFs, Rlimit rlimit) {

  /** Nothing read yet. */
  public static final NodeReading NONE = new NodeReading(null, null, null, null, null);

  /**
   * A cgroup's memory, as the summary's {@code MemoryStats}.
   *
   * @param availableBytes the limit (the node's memory, for the node) less the working set; null
   *     when there is no limit
   * @param rssBytes null when not known
   */
  public record Memory(
      Instant time,
      Long availableBytes,
      long workingSetBytes,
      long usageBytes,
      Long rssBytes,
      Long pageFaults,
      Long majorPageFaults) {
    public Memory {
      Objects.requireNonNull(time, "time");
    }

    Summary.MemoryStats stats() {
      return new Summary.MemoryStats(
          Summary.time(time),
          availableBytes,
          usageBytes,
          workingSetBytes,
          rssBytes,
          pageFaults,
          majorPageFaults);
    }
  }

  /**
   * A file system, from {@code statvfs(3)}.
   *
   * @param usedBytes the capacity less the free bytes (reserved blocks count as used)
   * @param inodesFree null, as {@code inodes}, when the file system reports no inodes
   */
  public record Fs(
      Instant time,
      long availableBytes,
      long capacityBytes,
      long usedBytes,
      Long inodesFree,
      Long inodes) {
    public Fs {
      Objects.requireNonNull(time, "time");
    }

    Summary.FsStats stats() {
      return new Summary.FsStats(
          Summary.time(time),
          availableBytes,
          capacityBytes,
          usedBytes,
          inodesFree,
          inodes,
          inodes == null || inodesFree == null ? null : inodes - inodesFree);
    }
  }

  /**
   * @param maxPid {@code kernel.pid_max}
   * @param processes the tasks the kernel has (upstream's {@code sysinfo} {@code procs})
   */
  public record Rlimit(Instant time, long maxPid, long processes) {
    public Rlimit {
      Objects.requireNonNull(time, "time");
    }

    Summary.RlimitStats stats() {
      return new Summary.RlimitStats(Summary.time(time), maxPid, processes);
    }
  }
}
