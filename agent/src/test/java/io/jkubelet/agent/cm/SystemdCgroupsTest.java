package io.jkubelet.agent.cm;

import static io.jkubelet.agent.cm.CgroupTrees.read;
import static io.jkubelet.agent.cm.Pods.container;
import static io.jkubelet.agent.cm.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.cm.NodeAllocatable.Amounts;
import io.jkubelet.agent.systemd.FakeSystemd;
import io.jkubelet.agent.systemd.SystemdException;
import io.jkubelet.agent.systemd.UnitProperty;
import io.jkubelet.config.CgroupSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The systemd driver's slices: the unit properties of each limit, as libcontainer's, and limits
 * that hold when systemd realizes the slices again (a container scope starting in one, {@code
 * daemon-reload}) and across a restart of jkubelet.
 */
class SystemdCgroupsTest {
  private static final long GI = 1024L * 1024 * 1024;
  private static final NodeAllocatable NODE =
      new NodeAllocatable(
          new Amounts(4000, 8 * GI, 0, 32768),
          new Amounts(500, GI, 0, 0),
          Amounts.NONE,
          Amounts.NONE,
          0);
  private static final CgroupName KUBEPODS = CgroupName.ROOT.child("kubepods");
  private static final CgroupName BURSTABLE = KUBEPODS.child("burstable");

  @TempDir Path tmp;

  static Stream<Arguments> properties() {
    ResourceConfig pod = ResourceConfig.shares(102).withCpuQuota(10_000, 100_000);
    return Stream.of(
        Arguments.of(
            "v2: memory, weight from shares, quota, pids",
            pod.withMemoryLimit(32L << 20).withPidsLimit(512),
            true,
            252,
            "[MemoryMax=33554432, CPUWeight=4, CPUQuotaPeriodUSec=100000,"
                + " CPUQuotaPerSecUSec=100000, TasksAccounting=true, TasksMax=512]"),
        Arguments.of(
            "v1: MemoryLimit and CPUShares",
            pod.withMemoryLimit(32L << 20),
            false,
            252,
            "[MemoryLimit=33554432, CPUShares=102, CPUQuotaPeriodUSec=100000,"
                + " CPUQuotaPerSecUSec=100000]"),
        Arguments.of(
            "before systemd 242 no quota period",
            ResourceConfig.EMPTY.withCpuQuota(10_000, 100_000),
            true,
            241,
            "[CPUQuotaPerSecUSec=100000]"),
        Arguments.of(
            "a quota is rounded up to 10ms a second",
            ResourceConfig.EMPTY.withCpuQuota(1_500, 100_000),
            true,
            252,
            "[CPUQuotaPeriodUSec=100000, CPUQuotaPerSecUSec=20000]"),
        Arguments.of(
            "-1 is infinity",
            ResourceConfig.EMPTY.withCpuQuota(-1, 100_000).withMemoryLimit(-1).withPidsLimit(-1),
            true,
            252,
            "[MemoryMax=infinity, CPUQuotaPeriodUSec=100000, CPUQuotaPerSecUSec=infinity,"
                + " TasksAccounting=true, TasksMax=infinity]"),
        Arguments.of("nothing set: no property", ResourceConfig.EMPTY, true, 252, "[]"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void properties(String name, ResourceConfig config, boolean v2, int version, String expected) {
    assertThat(SystemdCgroups.properties(config, v2, version).toString()).isEqualTo(expected);
  }

  @Test
  void unitNamesAreTheSlicesAndTheirParents() {
    CgroupName pod = BURSTABLE.child("pod12-ab");
    assertThat(SystemdCgroups.unit(pod)).isEqualTo("kubepods-burstable-pod12_ab.slice");
    assertThat(SystemdCgroups.parentUnit(pod)).isEqualTo("kubepods-burstable.slice");
    assertThat(SystemdCgroups.parentUnit(KUBEPODS)).isEqualTo("-.slice");
  }

  private SystemdCgroups cgroups(Path fs, FakeSystemd systemd) {
    return new SystemdCgroups(
        CgroupManager.detect(fs, CgroupDriver.SYSTEMD, CgroupTrees.RMDIR), systemd, 252);
  }

  @Test
  void createStartsATransientSliceWithAccountingAndItsLimits() throws Exception {
    Path fs = CgroupTrees.v2(tmp.resolve("unified"));
    FakeSystemd systemd = new FakeSystemd(fs, 252);
    cgroups(fs, systemd).create(KUBEPODS, ResourceConfig.shares(3584).withMemoryLimit(7 * GI));

    Map<String, UnitProperty.Value> unit = systemd.unit("kubepods.slice").orElseThrow();
    assertThat(unit)
        .containsEntry("Wants", new UnitProperty.Strs(List.of("-.slice")))
        .containsEntry("DefaultDependencies", new UnitProperty.Bool(false))
        .containsEntry("MemoryAccounting", new UnitProperty.Bool(true))
        .containsEntry("CPUAccounting", new UnitProperty.Bool(true))
        .containsEntry("TasksAccounting", new UnitProperty.Bool(true))
        .containsEntry("MemoryMax", new UnitProperty.U64(7 * GI))
        .containsEntry("CPUWeight", new UnitProperty.U64(137));
    assertThat(read(fs.resolve("kubepods.slice/memory.max"))).isEqualTo(Long.toString(7 * GI));
  }

  @Test
  void anExistingSliceIsAdoptedAndAnUnchangedUpdateCallsNothing() throws Exception {
    Path fs = CgroupTrees.v2(tmp.resolve("unified"));
    FakeSystemd systemd = new FakeSystemd(fs, 252);
    cgroups(fs, systemd).create(BURSTABLE, ResourceConfig.shares(1024));

    SystemdCgroups restarted = cgroups(fs, systemd);
    restarted.create(BURSTABLE, ResourceConfig.shares(2048));
    restarted.update(BURSTABLE, ResourceConfig.shares(2048));
    restarted.update(BURSTABLE, ResourceConfig.shares(2048));

    assertThat(systemd.calls())
        .containsExactly(
            "StartTransientUnit kubepods-burstable.slice",
            "StartTransientUnit kubepods-burstable.slice",
            "SetUnitProperties kubepods-burstable.slice");
    assertThat(read(fs.resolve("kubepods.slice/kubepods-burstable.slice/cpu.weight")))
        .as("2048 shares")
        .isEqualTo("79");
  }

  @Test
  void updateStartsASliceSystemdHasNotLoaded() {
    FakeSystemd systemd = new FakeSystemd();
    SystemdCgroups cgroups =
        new SystemdCgroups(
            new CgroupV2(tmp, CgroupDriver.SYSTEMD, CgroupTrees.RMDIR), systemd, 252);
    cgroups.update(KUBEPODS, ResourceConfig.shares(2));
    assertThat(systemd.calls())
        .containsExactly("SetUnitProperties kubepods.slice", "StartTransientUnit kubepods.slice");
    assertThat(systemd.unit("kubepods.slice")).isPresent();
  }

  @Test
  void systemdsOtherErrorsNameTheCgroup() {
    FakeSystemd systemd = new FakeSystemd();
    SystemdCgroups cgroups =
        new SystemdCgroups(
            new CgroupV2(tmp, CgroupDriver.SYSTEMD, CgroupTrees.RMDIR), systemd, 252);
    systemd.fail(new SystemdException(SystemdException.FAILED, "Access denied"));
    assertThatThrownBy(() -> cgroups.create(KUBEPODS, ResourceConfig.EMPTY))
        .isInstanceOf(CgroupException.class)
        .hasMessage("cgroup /kubepods.slice: cannot start the slice kubepods.slice: Access denied");
  }

  @Test
  void removeStopsTheSliceUnlessProcessesAreLeft() throws Exception {
    Path fs = CgroupTrees.v2(tmp.resolve("unified"));
    FakeSystemd systemd = new FakeSystemd(fs, 252);
    SystemdCgroups cgroups = cgroups(fs, systemd);
    CgroupName pod = BURSTABLE.child("pod1");
    cgroups.create(BURSTABLE, ResourceConfig.EMPTY);
    cgroups.create(pod, ResourceConfig.shares(2));
    Path procs =
        fs.resolve(
            "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/cgroup.procs");
    Files.writeString(procs, "42\n");
    String path = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice";

    assertThat(cgroups.remove(pod)).isEqualTo(new Removal.Busy(path, List.of(42)));
    assertThat(systemd.unit("kubepods-burstable-pod1.slice")).isPresent();
    Files.writeString(procs, "");
    assertThat(cgroups.remove(pod)).isEqualTo(new Removal.Removed(path));
    assertThat(systemd.unit("kubepods-burstable-pod1.slice")).isEmpty();
    assertThat(fs.resolve(path.substring(1))).doesNotExist();
    assertThat(cgroups.remove(pod)).isEqualTo(new Removal.Absent(path));
  }

  private static CgroupOptions options(Path fs, String driver) {
    return new CgroupOptions(
        new CgroupSettings(true, "/", driver, true, Duration.ofMillis(100), 512, List.of("pods")),
        fs);
  }

  /**
   * What the guest showed (docs/testing.md): written into the files, the limits are gone once
   * systemd realizes the slices; as unit properties they stay, and a restarted jkubelet adopts the
   * slices with the same limits.
   */
  @Test
  void limitsHoldWhenSystemdRealizesTheSlicesAndAcrossARestart() throws Exception {
    Pod web = pod("w-1", container("100m", "32Mi", "100m", "32Mi"));
    Pod burst = pod("b-1", container("500m", "", "", ""));
    Path fs = CgroupTrees.v2(tmp.resolve("unified"));
    FakeSystemd systemd = new FakeSystemd(fs, 252);
    ContainerManager cm =
        new QosContainerManager(options(fs, "systemd"), NODE, CgroupTrees.RMDIR, () -> systemd);
    cm.start();
    cm.ensurePod(web);
    cm.ensurePod(burst);
    cm.updateQos(List.of(web, burst));

    systemd.realizeAll();

    Path kubepods = fs.resolve("kubepods.slice");
    Path podDir = kubepods.resolve("kubepods-podw_1.slice");
    assertThat(read(kubepods.resolve("memory.max"))).isEqualTo(Long.toString(7 * GI));
    assertThat(read(kubepods.resolve("pids.max"))).isEqualTo("32768");
    assertThat(read(kubepods.resolve("cpu.weight"))).isEqualTo("137");
    assertThat(read(kubepods.resolve("kubepods-burstable.slice/cpu.weight")))
        .as("512 shares")
        .isEqualTo("20");
    assertThat(read(kubepods.resolve("kubepods-besteffort.slice/cpu.weight"))).isEqualTo("1");
    assertThat(read(podDir.resolve("memory.max"))).isEqualTo(Long.toString(32L << 20));
    assertThat(read(podDir.resolve("cpu.max"))).isEqualTo("10000 100000");
    assertThat(read(podDir.resolve("pids.max"))).isEqualTo("512");

    cm.stop();
    assertThat(systemd.closed()).isTrue();
    FakeSystemd same = systemd.reconnect();
    ContainerManager restarted =
        new QosContainerManager(options(fs, "systemd"), NODE, CgroupTrees.RMDIR, () -> same);
    restarted.start();
    restarted.updateQos(List.of(web, burst));
    assertThat(restarted.exists(web)).isTrue();
    same.realizeAll();
    assertThat(read(kubepods.resolve("memory.max"))).isEqualTo(Long.toString(7 * GI));
    assertThat(read(podDir.resolve("memory.max"))).isEqualTo(Long.toString(32L << 20));
    assertThat(read(kubepods.resolve("kubepods-burstable.slice/cpu.weight"))).isEqualTo("20");

    assertThat(restarted.cleanup(Set.of("w-1"))).hasSize(1);
    assertThat(same.unit("kubepods-burstable-podb_1.slice")).isEmpty();
  }

  /** The cgroupfs way on the same tree, for contrast: systemd puts {@code max} back. */
  @Test
  void limitsWrittenOnlyIntoTheFilesDoNotHold() throws Exception {
    Path fs = CgroupTrees.v2(tmp.resolve("unified"));
    CgroupManager files = CgroupManager.detect(fs, CgroupDriver.SYSTEMD, CgroupTrees.RMDIR);
    files.create(KUBEPODS, ResourceConfig.EMPTY.withMemoryLimit(7 * GI));
    new FakeSystemd(fs, 252).realizeAll();
    assertThat(read(fs.resolve("kubepods.slice/memory.max"))).isEqualTo("max");
  }
}
