package io.jkubelet.agent.cm;

import static io.jkubelet.agent.cm.CgroupTrees.read;
import static io.jkubelet.agent.cm.Pods.container;
import static io.jkubelet.agent.cm.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.cm.NodeAllocatable.Amounts;
import io.jkubelet.agent.systemd.FakeSystemd;
import io.jkubelet.config.CgroupSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container manager over temporary cgroup trees: what {@code start}, {@code updateQos}, {@code
 * ensurePod} and {@code cleanup} leave in the files.
 */
class ContainerManagerTest {
  private static final long GI = 1024L * 1024 * 1024;
  private static final NodeAllocatable NODE =
      new NodeAllocatable(
          new Amounts(4000, 8 * GI, 0, 32768),
          new Amounts(500, GI, 0, 0),
          Amounts.NONE,
          new Amounts(0, 100L << 20, 0, 0),
          0);

  @TempDir Path tmp;

  private final Pod guaranteed = pod("g-1", container("500m", "256Mi", "500m", "256Mi"));
  private final Pod burstable = pod("b-1", container("250m", "64Mi", "", ""));
  private final Pod burstable2 = pod("b-2", container("1", "", "2", ""));
  private final Pod bestEffort = pod("e-1", container("", "", "", ""));

  private static CgroupOptions options(
      Path fs, String driver, long pidsLimit, List<String> enforce) {
    return new CgroupOptions(
        new CgroupSettings(true, "/", driver, true, Duration.ofMillis(100), pidsLimit, enforce),
        fs);
  }

  private ContainerManager manager(Path fs, String driver) {
    return manager(fs, driver, new FakeSystemd(fs, 252));
  }

  private static ContainerManager manager(Path fs, String driver, FakeSystemd systemd) {
    return new QosContainerManager(
        options(fs, driver, 512, List.of("pods")), NODE, CgroupTrees.RMDIR, () -> systemd);
  }

  @Test
  void startMakesKubepodsWithNodeAllocatableAndTheQosTiers() throws Exception {
    Path fs = CgroupTrees.v1(tmp.resolve("cgroup"));
    ContainerManager cm = manager(fs, "cgroupfs");
    assertThat(cm.healthy().ok()).isFalse();
    cm.start();

    assertThat(cm.healthy().ok()).isTrue();
    assertThat(read(fs.resolve("cpu/kubepods/cpu.shares"))).as("3500m").isEqualTo("3584");
    assertThat(read(fs.resolve("memory/kubepods/memory.limit_in_bytes")))
        .as("8Gi - 1Gi kube reserved; the eviction threshold is not subtracted")
        .isEqualTo(Long.toString(7 * GI));
    assertThat(read(fs.resolve("pids/kubepods/pids.max"))).isEqualTo("32768");
    assertThat(read(fs.resolve("cpu/kubepods/besteffort/cpu.shares"))).isEqualTo("2");
    assertThat(fs.resolve("cpu/kubepods/burstable")).isDirectory();
    assertThat(fs.resolve("cpu/kubepods/burstable/cpu.shares"))
        .as("nothing for Burstable before the first update")
        .doesNotExist();
  }

  @Test
  void withoutPodsEnforcedKubepodsGetsTheCapacity() throws Exception {
    Path fs = CgroupTrees.v1(tmp.resolve("cgroup"));
    new QosContainerManager(
            options(fs, "cgroupfs", -1, List.of()), NODE, CgroupTrees.RMDIR, FakeSystemd::new)
        .start();
    assertThat(read(fs.resolve("cpu/kubepods/cpu.shares"))).isEqualTo("4096");
    assertThat(read(fs.resolve("memory/kubepods/memory.limit_in_bytes")))
        .isEqualTo(Long.toString(8 * GI));
  }

  @Test
  void burstableSharesFollowTheActiveBurstablePods() throws Exception {
    Path fs = CgroupTrees.v1(tmp.resolve("cgroup"));
    ContainerManager cm = manager(fs, "cgroupfs");
    cm.start();
    Path shares = fs.resolve("cpu/kubepods/burstable/cpu.shares");

    cm.updateQos(List.of(guaranteed, burstable, burstable2, bestEffort));
    assertThat(read(shares)).as("250m + 1 core").isEqualTo("1280");
    assertThat(read(fs.resolve("cpu/kubepods/besteffort/cpu.shares"))).isEqualTo("2");

    cm.updateQos(List.of(guaranteed, burstable2));
    assertThat(read(shares)).as("a pod went").isEqualTo("1024");

    cm.updateQos(List.of(guaranteed, bestEffort));
    assertThat(read(shares)).as("no Burstable pod left").isEqualTo("2");
  }

  @Test
  void ensurePodMakesTheCgroupUnderItsTierWithItsLimits() throws Exception {
    Path fs = CgroupTrees.v1(tmp.resolve("cgroup"));
    ContainerManager cm = manager(fs, "cgroupfs");
    cm.start();
    for (Pod p : List.of(guaranteed, burstable, bestEffort)) {
      cm.ensurePod(p);
    }

    assertThat(cm.cgroupParent(guaranteed)).isEqualTo("/kubepods/podg-1");
    assertThat(cm.cgroupParent(burstable)).isEqualTo("/kubepods/burstable/podb-1");
    assertThat(cm.cgroupParent(bestEffort)).isEqualTo("/kubepods/besteffort/pode-1");
    Path g = fs.resolve("cpu/kubepods/podg-1");
    assertThat(read(g.resolve("cpu.shares"))).isEqualTo("512");
    assertThat(read(g.resolve("cpu.cfs_quota_us"))).isEqualTo("50000");
    assertThat(read(g.resolve("cpu.cfs_period_us"))).isEqualTo("100000");
    assertThat(read(fs.resolve("memory/kubepods/podg-1/memory.limit_in_bytes")))
        .isEqualTo(Long.toString(256L << 20));
    assertThat(read(fs.resolve("pids/kubepods/podg-1/pids.max")))
        .as("podPidsLimit")
        .isEqualTo("512");
    assertThat(read(fs.resolve("cpu/kubepods/burstable/podb-1/cpu.shares"))).isEqualTo("256");
    assertThat(fs.resolve("cpu/kubepods/burstable/podb-1/cpu.cfs_quota_us")).doesNotExist();
    assertThat(read(fs.resolve("cpu/kubepods/besteffort/pode-1/cpu.shares"))).isEqualTo("2");

    Files.writeString(g.resolve("cpu.shares"), "7");
    cm.ensurePod(guaranteed);
    assertThat(read(g.resolve("cpu.shares")))
        .as("an existing cgroup is left as it is")
        .isEqualTo("7");
  }

  @Test
  void ensurePodFailsWithTheCgroupAndTheReason() throws Exception {
    Path fs = CgroupTrees.v1(tmp.resolve("cgroup"));
    ContainerManager cm = manager(fs, "cgroupfs");
    cm.start();
    // A file where the pod's memory cgroup directory must go.
    Files.writeString(fs.resolve("memory/kubepods/burstable/podb-1"), "");
    assertThatThrownBy(() -> cm.ensurePod(burstable))
        .isInstanceOf(CgroupException.class)
        .hasMessageStartingWith("cgroup /kubepods/burstable/podb-1: cannot create ")
        .hasMessageContaining("memory/kubepods/burstable/podb-1");
  }

  @Test
  void cleanupRemovesOrphansAndRetriesTheBusyOnesLater() throws Exception {
    Path fs = CgroupTrees.v1(tmp.resolve("cgroup"));
    ContainerManager cm = manager(fs, "cgroupfs");
    cm.start();
    for (Pod p : List.of(guaranteed, burstable, burstable2, bestEffort)) {
      cm.ensurePod(p);
    }
    Path busyProcs = fs.resolve("memory/kubepods/burstable/podb-2/cgroup.procs");
    Files.writeString(busyProcs, "123\n");

    List<Removal> first = cm.cleanup(Set.of("g-1"));
    assertThat(first)
        .containsExactlyInAnyOrder(
            new Removal.Removed("/kubepods/burstable/podb-1"),
            new Removal.Busy("/kubepods/burstable/podb-2", List.of(123)),
            new Removal.Removed("/kubepods/besteffort/pode-1"));
    assertThat(fs.resolve("cpu/kubepods/podg-1")).as("active").isDirectory();
    assertThat(fs.resolve("cpu/kubepods/burstable/podb-1")).doesNotExist();
    assertThat(fs.resolve("cpu/kubepods/burstable/podb-2")).isDirectory();
    assertThat(fs.resolve("cpu/kubepods/burstable")).as("the tiers stay").isDirectory();

    Files.writeString(busyProcs, "");
    assertThat(cm.cleanup(Set.of("g-1")))
        .containsExactly(new Removal.Removed("/kubepods/burstable/podb-2"));
    assertThat(cm.cleanup(Set.of("g-1"))).isEmpty();
  }

  @Test
  void systemdDriverOnCgroupV2() throws Exception {
    Path fs = CgroupTrees.v2(tmp.resolve("unified"));
    ContainerManager cm = manager(fs, "systemd");
    cm.start();
    cm.ensurePod(burstable2);
    cm.updateQos(List.of(burstable2));

    assertThat(cm.cgroupParent(burstable2)).isEqualTo("kubepods-burstable-podb_2.slice");
    Path kubepods = fs.resolve("kubepods.slice");
    assertThat(read(kubepods.resolve("cpu.weight"))).as("3584 shares").isEqualTo("137");
    assertThat(read(kubepods.resolve("memory.max"))).isEqualTo(Long.toString(7 * GI));
    Path tier = kubepods.resolve("kubepods-burstable.slice");
    assertThat(read(tier.resolve("cpu.weight"))).as("1024 shares").isEqualTo("39");
    assertThat(read(kubepods.resolve("kubepods-besteffort.slice/cpu.weight"))).isEqualTo("1");
    Path pod = tier.resolve("kubepods-burstable-podb_2.slice");
    assertThat(read(pod.resolve("cpu.max"))).isEqualTo("200000 100000");
    assertThat(read(pod.resolve("pids.max"))).isEqualTo("512");

    assertThat(cm.cleanup(Set.of()))
        .containsExactly(
            new Removal.Removed(
                "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podb_2.slice"));
    assertThat(pod).doesNotExist();
  }

  @Test
  void startFailsClearlyWithoutTheCgroupRootAndUsingItBeforeStartIsAnError() throws Exception {
    Path fs = CgroupTrees.v1(tmp.resolve("cgroup"));
    ContainerManager cm =
        new QosContainerManager(
            new CgroupOptions(
                new CgroupSettings(
                    true,
                    "/missing",
                    "cgroupfs",
                    true,
                    Duration.ofMillis(100),
                    -1,
                    List.of("pods")),
                fs),
            NODE,
            CgroupTrees.RMDIR,
            FakeSystemd::new);
    assertThatThrownBy(() -> cm.ensurePod(burstable))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("ContainerManager is not started");
    assertThatThrownBy(cm::start)
        .isInstanceOf(CgroupException.class)
        .hasMessage("cgroup /missing: cgroupRoot does not exist");
    assertThat(cm.healthy().message()).isEqualTo("cgroup /missing: cgroupRoot does not exist");

    ContainerManager noFs = manager(tmp.resolve("nothing"), "cgroupfs");
    assertThatThrownBy(noFs::start)
        .isInstanceOf(CgroupException.class)
        .hasMessageContaining("no cgroup file system at");
  }
}
