package io.jkubelet.agent.cm;

import static io.jkubelet.agent.cm.CgroupTrees.read;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** cgroup v2 in a temporary tree laid out like a unified {@code /sys/fs/cgroup}. */
class CgroupV2Test {
  @TempDir Path tmp;
  private Path root;
  private CgroupManager cgroups;
  private final CgroupName pod = CgroupName.parseCgroupfs("/kubepods/burstable/pod12-ab");

  @BeforeEach
  void setUp() throws Exception {
    root = CgroupTrees.v2(tmp.resolve("cgroup"));
    cgroups = CgroupManager.detect(root, CgroupDriver.CGROUPFS, CgroupTrees.RMDIR);
  }

  @Test
  void createConvertsToTheUnifiedFilesAndEnablesControllersDownTheTree() throws Exception {
    assertThat(cgroups.version()).isEqualTo("v2");
    cgroups.create(
        pod,
        ResourceConfig.shares(102)
            .withCpuQuota(20_000, 100_000)
            .withMemoryLimit(209715200)
            .withPidsLimit(1024));

    Path dir = root.resolve("kubepods/burstable/pod12-ab");
    assertThat(read(dir.resolve("cpu.weight"))).isEqualTo("4");
    assertThat(read(dir.resolve("cpu.max"))).isEqualTo("20000 100000");
    assertThat(read(dir.resolve("memory.max"))).isEqualTo("209715200");
    assertThat(read(dir.resolve("pids.max"))).isEqualTo("1024");
    for (Path level : List.of(root, root.resolve("kubepods"), root.resolve("kubepods/burstable"))) {
      assertThat(read(level.resolve("cgroup.subtree_control")))
          .as("controllers the root offers and jkubelet uses, in the root's order, at %s", level)
          .isEqualTo("+cpuset +cpu +memory +hugetlb +pids");
    }
    assertThat(dir.resolve("cgroup.subtree_control")).doesNotExist();
    assertThat(cgroups.exists(pod)).isTrue();
  }

  @Test
  void noQuotaIsMaxAndUnlimitedIsMax() throws Exception {
    cgroups.create(
        pod,
        ResourceConfig.shares(262144)
            .withCpuQuota(-1, 50_000)
            .withMemoryLimit(-1)
            .withPidsLimit(-1));
    Path dir = root.resolve("kubepods/burstable/pod12-ab");
    assertThat(read(dir.resolve("cpu.weight"))).isEqualTo("10000");
    assertThat(read(dir.resolve("cpu.max"))).isEqualTo("max 50000");
    assertThat(read(dir.resolve("memory.max"))).isEqualTo("max");
    assertThat(read(dir.resolve("pids.max"))).isEqualTo("max");
  }

  @Test
  void onlyWhatIsSetIsWritten() throws Exception {
    cgroups.create(pod, ResourceConfig.shares(2));
    Path dir = root.resolve("kubepods/burstable/pod12-ab");
    assertThat(read(dir.resolve("cpu.weight"))).isEqualTo("1");
    assertThat(dir.resolve("cpu.max")).doesNotExist();
    assertThat(dir.resolve("memory.max")).doesNotExist();
  }

  @Test
  void removeSkipsABusyCgroupAndRemovesAnIdleOne() throws Exception {
    cgroups.create(pod, ResourceConfig.shares(2));
    Path dir = root.resolve("kubepods/burstable/pod12-ab");
    Files.writeString(dir.resolve("cgroup.procs"), "99\n");
    assertThat(cgroups.remove(pod))
        .isEqualTo(new Removal.Busy("/kubepods/burstable/pod12-ab", List.of(99)));
    assertThat(dir).isDirectory();

    Files.writeString(dir.resolve("cgroup.procs"), "");
    assertThat(cgroups.remove(pod)).isEqualTo(new Removal.Removed("/kubepods/burstable/pod12-ab"));
    assertThat(dir).doesNotExist();
    assertThat(cgroups.children(CgroupName.parseCgroupfs("/kubepods/burstable"))).isEmpty();
  }
}
