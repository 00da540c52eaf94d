package io.jkubelet.agent.cm;

import static io.jkubelet.agent.cm.CgroupTrees.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** cgroup v1 in a temporary tree laid out like this kind of host's {@code /sys/fs/cgroup}. */
class CgroupV1Test {
  @TempDir Path tmp;
  private Path root;
  private CgroupManager cgroups;
  private final CgroupName pod = CgroupName.parseCgroupfs("/kubepods/burstable/pod12-ab");

  @BeforeEach
  void setUp() throws Exception {
    root = CgroupTrees.v1(tmp.resolve("cgroup"));
    cgroups = CgroupManager.detect(root, CgroupDriver.CGROUPFS, CgroupTrees.RMDIR);
  }

  @Test
  void detectedAsV1WithoutARootControllersFile() {
    assertThat(cgroups.version()).isEqualTo("v1");
  }

  @Test
  void createMakesTheCgroupInEveryHierarchyAndWritesItsLimits() throws Exception {
    assertThat(cgroups.exists(pod)).isFalse();
    cgroups.create(
        pod,
        ResourceConfig.shares(102)
            .withCpuQuota(20_000, 100_000)
            .withMemoryLimit(209715200)
            .withPidsLimit(1024));

    assertThat(cgroups.exists(pod)).isTrue();
    for (String h :
        new String[] {
          "cpu,cpuacct", "cpuset", "memory", "pids", "devices", "freezer", "blkio", "systemd"
        }) {
      assertThat(root.resolve(h).resolve("kubepods/burstable/pod12-ab")).as(h).isDirectory();
    }
    assertThat(root.resolve("unified/kubepods"))
        .as("systemd's empty v2 mount is not a hierarchy")
        .doesNotExist();
    Path cpu = root.resolve("cpu/kubepods/burstable/pod12-ab");
    assertThat(read(cpu.resolve("cpu.shares"))).isEqualTo("102");
    assertThat(read(cpu.resolve("cpu.cfs_period_us"))).isEqualTo("100000");
    assertThat(read(cpu.resolve("cpu.cfs_quota_us"))).isEqualTo("20000");
    assertThat(read(root.resolve("memory/kubepods/burstable/pod12-ab/memory.limit_in_bytes")))
        .isEqualTo("209715200");
    assertThat(read(root.resolve("pids/kubepods/burstable/pod12-ab/pids.max"))).isEqualTo("1024");
    for (String level :
        new String[] {"kubepods", "kubepods/burstable", "kubepods/burstable/pod12-ab"}) {
      assertThat(read(root.resolve("cpuset").resolve(level).resolve("cpuset.cpus")))
          .as("cpus copied down to %s", level)
          .isEqualTo("0-1");
      assertThat(read(root.resolve("cpuset").resolve(level).resolve("cpuset.mems"))).isEqualTo("0");
    }
  }

  @Test
  void updateWritesOnlyWhatIsSetAndUnlimitedAsV1Spells() throws Exception {
    cgroups.create(pod, ResourceConfig.shares(2));
    Path cpu = root.resolve("cpu/kubepods/burstable/pod12-ab");
    assertThat(cpu.resolve("cpu.cfs_quota_us")).doesNotExist();
    assertThat(root.resolve("memory/kubepods/burstable/pod12-ab/memory.limit_in_bytes"))
        .doesNotExist();

    cgroups.update(pod, ResourceConfig.EMPTY.withCpuQuota(-1, 50_000).withPidsLimit(-1));
    assertThat(read(cpu.resolve("cpu.shares"))).isEqualTo("2");
    assertThat(read(cpu.resolve("cpu.cfs_quota_us"))).isEqualTo("-1");
    assertThat(read(cpu.resolve("cpu.cfs_period_us"))).isEqualTo("50000");
    assertThat(read(root.resolve("pids/kubepods/burstable/pod12-ab/pids.max"))).isEqualTo("max");
  }

  @Test
  void removeIsRmdirInEveryHierarchyChildCgroupsFirst() throws Exception {
    cgroups.create(pod, ResourceConfig.shares(2));
    Files.createDirectories(root.resolve("memory/kubepods/burstable/pod12-ab/container1"));
    Files.writeString(root.resolve("memory/kubepods/burstable/pod12-ab/cgroup.procs"), "");

    assertThat(cgroups.remove(pod)).isEqualTo(new Removal.Removed("/kubepods/burstable/pod12-ab"));
    for (String h : new String[] {"cpu,cpuacct", "cpuset", "memory", "pids", "systemd"}) {
      assertThat(root.resolve(h).resolve("kubepods/burstable/pod12-ab")).as(h).doesNotExist();
      assertThat(root.resolve(h).resolve("kubepods/burstable")).as(h).isDirectory();
    }
    assertThat(cgroups.remove(pod)).isEqualTo(new Removal.Absent("/kubepods/burstable/pod12-ab"));
  }

  @Test
  void aCgroupWithProcessesIsReportedBusyAndLeftWhole() throws Exception {
    cgroups.create(pod, ResourceConfig.shares(2));
    Path container = Files.createDirectories(root.resolve("pids/kubepods/burstable/pod12-ab/c1"));
    Files.writeString(container.resolve("cgroup.procs"), "4242\n17\n");

    assertThat(cgroups.pids(pod)).containsExactly(17, 4242);
    assertThat(cgroups.remove(pod))
        .isEqualTo(new Removal.Busy("/kubepods/burstable/pod12-ab", java.util.List.of(17, 4242)));
    assertThat(root.resolve("cpu/kubepods/burstable/pod12-ab")).isDirectory();
  }

  @Test
  void aRefusedRmdirIsReportedNotThrown() throws Exception {
    cgroups.create(pod, ResourceConfig.shares(2));
    CgroupManager refusing =
        CgroupManager.detect(
            root,
            CgroupDriver.CGROUPFS,
            dir -> {
              throw new java.nio.file.AccessDeniedException(
                  dir.toString(), null, "Permission denied");
            });
    Removal r = refusing.remove(pod);
    assertThat(r).isInstanceOf(Removal.Failed.class);
    assertThat(((Removal.Failed) r).reason()).contains("rmdir", "Permission denied");
  }

  @Test
  void aMissingRequiredControllerIsAClearError() throws Exception {
    Path bare = Files.createDirectories(tmp.resolve("bare/cpu"));
    Files.createDirectories(bare.resolveSibling("memory"));
    CgroupManager noPids =
        CgroupManager.detect(bare.getParent(), CgroupDriver.CGROUPFS, CgroupTrees.RMDIR);
    assertThatThrownBy(() -> noPids.create(pod, ResourceConfig.shares(2)))
        .isInstanceOf(CgroupException.class)
        .hasMessage(
            "cgroup /kubepods/burstable/pod12-ab: no cgroup v1 hierarchy for the required controller"
                + " pids");
  }

  @Test
  void systemdNamesAreSlicesOnDisk() throws Exception {
    CgroupManager systemd = CgroupManager.detect(root, CgroupDriver.SYSTEMD, CgroupTrees.RMDIR);
    systemd.create(pod, ResourceConfig.shares(102));
    Path dir =
        root.resolve(
            "cpu/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod12_ab.slice");
    assertThat(read(dir.resolve("cpu.shares"))).isEqualTo("102");
    assertThat(systemd.children(CgroupName.parseCgroupfs("/kubepods/burstable")))
        .containsExactly(pod);
  }
}
