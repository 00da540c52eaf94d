package io.jkubelet.agent.stats;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.util.FakeClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The node's reading from cgroup v1 and v2 trees and proc files laid out in a temporary directory
 * as the kernel writes them (this machine runs v1; v2 is tested here only).
 */
class NodeReaderTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00.250Z");
  private static final long MEM_TOTAL = 8_000_000L * 1024; // FakeHost's /proc/meminfo
  private static final long GI = 1L << 30;

  @TempDir Path dir;
  private final FakeClock clock = new FakeClock(T0);

  private NodeReader reader(FakeHost host, String kubepods, Supplier<Path> imageFs) {
    return NodeReader.create(
        new StatsOptions(
            "node-1",
            0, // MemTotal
            dir,
            imageFs,
            null,
            new StatsOptions.Host(host.cgroup, host.proc),
            Duration.ofSeconds(1),
            new StatsOptions.PodCgroups(uid -> List.of(), kubepods)),
        clock);
  }

  @ParameterizedTest(name = "cgroup v2: {0}")
  @ValueSource(booleans = {false, true})
  void memoryIsTheRootsWorkingSetAndPodsIsKubepodsWorkingSetOutOfItsLimit(boolean v2)
      throws Exception {
    FakeHost host = new FakeHost(dir, v2);
    host.kubepods("kubepods", 4 * GI, GI, 73_741_824, 7_000_000_000L);

    NodeReading r = reader(host, "/kubepods", () -> null).read(false);

    NodeReading.Memory m = r.memory();
    assertThat(m.time()).isEqualTo(T0);
    if (v2) { // the v2 root has no memory.current: MemTotal - MemFree - Inactive(file)
      long usage = (8_000_000L - 2_000_000L) * 1024;
      assertThat(m.usageBytes()).isEqualTo(usage);
      assertThat(m.workingSetBytes()).isEqualTo(usage - 1_000_000L * 1024);
      assertThat(m.rssBytes()).isEqualTo(500_000L * 1024);
    } else { // memory.usage_in_bytes - total_inactive_file of the root
      assertThat(m.usageBytes()).isEqualTo(4_000_000_000L);
      assertThat(m.workingSetBytes()).isEqualTo(3_000_000_000L);
      assertThat(m.rssBytes()).isEqualTo(2000L);
    }
    assertThat(m.availableBytes()).isEqualTo(MEM_TOTAL - m.workingSetBytes());

    // v1: usage_in_bytes - total_inactive_file; v2: memory.current - inactive_file.
    assertThat(r.pods())
        .isEqualTo(
            new NodeReading.Memory(T0, 4 * GI - 1_000_000_000L, 1_000_000_000L, GI, 300L, 9L, 2L));
    assertThat(r.rlimit()).isEqualTo(new NodeReading.Rlimit(T0, 4194304, 345));
    assertThat(r.fs().capacityBytes())
        .as("statvfs of the root dir's file system")
        .isEqualTo(Files.getFileStore(dir).getTotalSpace());
    assertThat(r.fs().inodes()).isPositive();
    assertThat(r.fs().inodesFree()).isBetween(0L, r.fs().inodes());
    assertThat(r.imageFs().capacityBytes())
        .as("the root dir's while the engine's is not known")
        .isEqualTo(r.fs().capacityBytes());
  }

  @ParameterizedTest(name = "cgroup v2: {0}")
  @ValueSource(booleans = {false, true})
  void kubepodsWithoutALimitHasNoAvailableBytes(boolean v2) {
    FakeHost host = new FakeHost(dir, v2);
    host.kubepods("kubepods", -1, GI, 0, 0);

    NodeReading.Memory pods = reader(host, "/kubepods", () -> null).read(true).pods();

    assertThat(pods.availableBytes()).isNull();
    assertThat(pods.workingSetBytes()).isEqualTo(GI);
  }

  @Test
  void withoutCgroupsPerQosThereIsNoPodsPart() {
    FakeHost host = new FakeHost(dir, false);

    assertThat(reader(host, null, () -> null).read(false).pods()).isNull();
  }

  @Test
  void aMemoryOnlyReadKeepsTheOtherPartsAndAFullReadDropsWhatNoLongerReads() throws Exception {
    FakeHost host = new FakeHost(dir, false);
    host.kubepods("kubepods", 4 * GI, GI, 0, 0);
    NodeReader reader = reader(host, "/kubepods", () -> null);
    NodeReading first = reader.read(false);

    clock.step(Duration.ofMillis(100));
    FakeHost.write(host.cgroup.resolve("memory/memory.usage_in_bytes"), "5000000000\n");
    Files.delete(host.proc.resolve("loadavg"));
    Files.delete(host.cgroup.resolve("memory/kubepods/memory.usage_in_bytes"));
    NodeReading fast = reader.read(true);

    assertThat(fast.memory().time()).isEqualTo(T0.plusMillis(100));
    assertThat(fast.memory().workingSetBytes()).isEqualTo(4_000_000_000L);
    assertThat(fast.pods()).as("kept until the next full read").isEqualTo(first.pods());
    assertThat(fast.rlimit()).isEqualTo(first.rlimit());
    assertThat(fast.fs()).isEqualTo(first.fs());

    clock.step(Duration.ofMillis(900));
    NodeReading full = reader.read(false);
    assertThat(full.pods()).isNull();
    assertThat(full.rlimit()).isNull();
    assertThat(full.memory().time()).isEqualTo(T0.plusSeconds(1));
    assertThat(full.fs().time()).isEqualTo(T0.plusSeconds(1));
  }

  @Test
  void currentReadsOnlyWhenTheLastFullReadIsOlderThanTheMaximumAge() {
    FakeHost host = new FakeHost(dir, false);
    NodeReader reader = reader(host, null, () -> null);
    NodeReading first = reader.current(Duration.ofSeconds(2));
    assertThat(first.memory().time()).as("nothing read yet: reads").isEqualTo(T0);

    FakeHost.write(host.cgroup.resolve("memory/memory.usage_in_bytes"), "5000000000\n");
    clock.step(Duration.ofSeconds(2));
    assertThat(reader.current(Duration.ofSeconds(2))).isSameAs(first);
    NodeReading fast = reader.read(true);
    assertThat(reader.current(Duration.ofSeconds(2))).as("the latest").isSameAs(fast);

    clock.step(Duration.ofMillis(1));
    NodeReading again = reader.current(Duration.ofSeconds(2));
    assertThat(again.fs().time()).isEqualTo(T0.plusMillis(2001));
  }

  @Test
  void theEnginesRootDirectoryIsAskedForUntilItAnswersAtMostOnceAMinute() {
    FakeHost host = new FakeHost(dir, false);
    AtomicInteger asked = new AtomicInteger();
    Path engine = dir.resolve("cgroup"); // any existing directory
    NodeReader reader = reader(host, null, () -> asked.incrementAndGet() < 2 ? null : engine);

    reader.read(false);
    clock.step(Duration.ofSeconds(59));
    reader.read(false);
    assertThat(asked).hasValue(1);
    clock.step(Duration.ofSeconds(1));
    reader.read(false);
    clock.step(Duration.ofMinutes(5));
    reader.read(false);
    assertThat(asked).as("kept once it answered").hasValue(2);
  }
}
