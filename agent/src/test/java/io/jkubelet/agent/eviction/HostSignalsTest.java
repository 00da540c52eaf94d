package io.jkubelet.agent.eviction;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.config.EvictionSettings.Signal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The signals read from cgroup v1 and proc files laid out as the kernel writes them. */
class HostSignalsTest {
  @TempDir Path dir;
  private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));

  private void write(String path, String content) throws IOException {
    Path p = dir.resolve(path);
    Files.createDirectories(p.getParent());
    Files.writeString(p, content);
  }

  @Test
  void memoryIsMemTotalLessTheRootWorkingSetAndAllocatableIsKubepodsLimitLessItsWorkingSet()
      throws IOException {
    write("proc/meminfo", "MemTotal:       16384000 kB\nMemFree:         1000000 kB\n");
    write("proc/sys/kernel/pid_max", "4194304\n");
    write("proc/loadavg", "0.50 0.40 0.30 3/1234 5678\n");
    write("cg/memory/memory.usage_in_bytes", "8000000000\n");
    write("cg/memory/memory.stat", "cache 10\ntotal_inactive_file 2000000000\n");
    write("cg/memory/kubepods/memory.limit_in_bytes", "4294967296\n");
    write("cg/memory/kubepods/memory.usage_in_bytes", "1073741824\n");
    write("cg/memory/kubepods/memory.stat", "total_inactive_file 73741824\n");
    HostSignals s =
        new HostSignals(
            dir.resolve("cg"), "/kubepods", dir.resolve("proc"), dir, () -> null, clock);

    Map<Signal, Observation> fast = s.read(true);
    Map<Signal, Observation> all = s.read(false);

    long memTotal = 16384000L * 1024;
    assertThat(fast).containsOnlyKeys(Signal.MEMORY_AVAILABLE, Signal.ALLOCATABLE_MEMORY_AVAILABLE);
    assertThat(fast.get(Signal.MEMORY_AVAILABLE))
        .isEqualTo(new Observation(memTotal - 6_000_000_000L, memTotal, clock.instant()));
    assertThat(fast.get(Signal.ALLOCATABLE_MEMORY_AVAILABLE))
        .isEqualTo(new Observation(4294967296L - 1_000_000_000L, 4294967296L, clock.instant()));
    assertThat(all.get(Signal.PID_AVAILABLE))
        .isEqualTo(new Observation(4194304 - 1234, 4194304, clock.instant()));
    assertThat(all.get(Signal.NODEFS_AVAILABLE).capacity())
        .as("statvfs of the root dir's file system")
        .isEqualTo(Files.getFileStore(dir).getTotalSpace());
    assertThat(all.get(Signal.NODEFS_INODES_FREE).capacity()).isPositive();
    assertThat(all).containsKey(Signal.IMAGEFS_AVAILABLE);
  }

  @Test
  void anUnlimitedKubepodsAndAMissingFileLeaveTheirSignalsOut() throws IOException {
    write("proc/meminfo", "MemTotal:       16384000 kB\nMemFree:         1000000 kB\n");
    write("cg/memory/kubepods/memory.limit_in_bytes", "9223372036854771712\n");
    write("cg/memory/kubepods/memory.usage_in_bytes", "1\n");
    write("cg/memory/kubepods/memory.stat", "total_inactive_file 0\n");
    HostSignals s =
        new HostSignals(
            dir.resolve("cg"), "/kubepods", dir.resolve("proc"), dir, () -> null, clock);

    assertThat(s.read(true)).isEmpty();
  }
}
