package io.jkubelet.agent.oom;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A container's memory cgroup read from files shaped as the kernel writes them: v1's {@code
 * memory.oom_control} and {@code memory.failcnt}, v2's {@code memory.events} and {@code
 * memory.peak} (Documentation/admin-guide/cgroup-v2.rst).
 */
class CgroupMemoryTest {
  private static final String ID = "0123456789abcdef";
  @TempDir Path root;

  private static void write(Path dir, String file, String content) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(file), content);
  }

  @Test
  void cgroupV1UnderItsPodCgroup() throws IOException {
    Path dir = root.resolve("memory/kubepods/burstable/podu1").resolve(ID);
    write(dir, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
    write(dir, "memory.failcnt", "94\n");
    write(dir, "memory.usage_in_bytes", "16646144\n");
    write(dir, "memory.limit_in_bytes", "16777216\n");
    write(dir, "memory.max_usage_in_bytes", "16777216\n");
    CgroupMemory cgroups = new CgroupMemory(root, uid -> List.of("/kubepods/burstable/pod" + uid));

    assertThat(cgroups.read("u1", ID))
        .contains(new MemoryCounters(false, 2, -1, 94, 16646144, 16777216, 16777216));
    assertThat(cgroups.read("u1", "gone")).isEmpty();
  }

  @Test
  void cgroupV1WithoutALimitAndInDockersOwnParent() throws IOException {
    Path dir = root.resolve("memory/docker").resolve(ID);
    write(dir, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\n"); // before 4.13
    write(dir, "memory.failcnt", "0\n");
    write(dir, "memory.usage_in_bytes", "4096\n");
    write(dir, "memory.limit_in_bytes", "9223372036854771712\n");
    CgroupMemory cgroups = new CgroupMemory(root, uid -> List.of());

    MemoryCounters m = cgroups.read("", ID).orElseThrow();
    assertThat(m.oomKills()).isZero();
    assertThat(m.limit()).isEmpty();
    assertThat(m.peakBytes()).isEqualTo(-1);
  }

  @Test
  void cgroupV2WithTheSystemdDriversScope() throws IOException {
    write(root, "cgroup.controllers", "cpuset cpu io memory pids\n");
    Path dir =
        root.resolve(
            "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podu1.slice/docker-"
                + ID
                + ".scope");
    write(dir, "memory.events", "low 0\nhigh 0\nmax 57\noom 3\noom_kill 2\noom_group_kill 0\n");
    write(dir, "memory.current", "33488896\n");
    write(dir, "memory.max", "33554432\n");
    write(dir, "memory.peak", "33554432\n");
    CgroupMemory cgroups =
        new CgroupMemory(
            root,
            uid ->
                List.of(
                    "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                        + uid
                        + ".slice"));

    assertThat(cgroups.read("u1", ID))
        .contains(new MemoryCounters(true, 2, 3, 57, 33488896, 33554432, 33554432));
  }

  @Test
  void cgroupV2WithoutPeakOrLimit() throws IOException {
    write(root, "cgroup.controllers", "memory\n");
    Path dir = root.resolve("system.slice/docker-" + ID + ".scope");
    write(dir, "memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
    write(dir, "memory.current", "1024\n");
    write(dir, "memory.max", "max\n");
    MemoryCounters m = new CgroupMemory(root, uid -> List.of()).read("u1", ID).orElseThrow();
    assertThat(m.v2()).isTrue();
    assertThat(m.limitBytes()).isEqualTo(-1);
    assertThat(m.peakBytes()).isEqualTo(-1);
  }
}
