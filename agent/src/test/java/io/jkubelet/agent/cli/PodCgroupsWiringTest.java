package io.jkubelet.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.cm.CgroupOptions;
import io.jkubelet.agent.cm.ContainerManager;
import io.jkubelet.agent.cm.NodeAllocatable;
import io.jkubelet.agent.node.NodeInfo;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PodCgroupsWiringTest {
  @TempDir Path tmp;

  private static final NodeInfo MACHINE =
      new NodeInfo(
          2,
          4L << 30,
          100L << 30,
          Map.of(),
          new NodeInfo.SystemInfo("6.1.0", "Debian", "linux", "amd64", "m", "u", "b"));

  @Test
  void aDriverOtherThanDockersIsRefusedWithUpstreamsMessage() {
    assertThatThrownBy(
            () ->
                PodCgroupsWiring.create(
                    CgroupOptions.DEFAULTS, MACHINE, () -> Optional.of("systemd")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--cgroup-driver")
        .hasMessageContaining(
            "misconfiguration: kubelet cgroup driver: \"cgroupfs\" is different from docker"
                + " cgroup driver: \"systemd\"");
  }

  @Test
  void theSameDriverOrAnEngineThatDoesNotAnswerGivesTheManager() {
    assertThat(
            PodCgroupsWiring.create(CgroupOptions.DEFAULTS, MACHINE, () -> Optional.of("cgroupfs")))
        .isNotSameAs(ContainerManager.NONE);
    assertThat(
            PodCgroupsWiring.create(
                CgroupOptions.DEFAULTS,
                MACHINE,
                () -> {
                  throw new RuntimeError(RuntimeError.Kind.OTHER, "connection refused");
                }))
        .isNotSameAs(ContainerManager.NONE);
  }

  @Test
  void withoutCgroupsPerQosNoManagerAndDockerIsNotAsked() {
    CgroupOptions off =
        new CgroupOptions(
            false,
            "/",
            "cgroupfs",
            true,
            CgroupOptions.DEFAULT_CFS_PERIOD,
            -1,
            List.of(),
            CgroupOptions.DEFAULT_CGROUP_FS);
    assertThat(
            PodCgroupsWiring.create(
                off,
                MACHINE,
                () -> {
                  throw new AssertionError("Docker asked");
                }))
        .isSameAs(ContainerManager.NONE);
  }

  @Test
  void capacityIsTheMachinesCpusMemoryAndPidMax() throws Exception {
    Path pidMax = Files.writeString(tmp.resolve("pid_max"), "32768\n");
    NodeAllocatable a = PodCgroupsWiring.allocatable(MACHINE, PodCgroupsWiring.pidMax(pidMax));

    assertThat(a.capacity()).isEqualTo(new NodeAllocatable.Amounts(2000, 4L << 30, 32768));
    assertThat(PodCgroupsWiring.pidMax(tmp.resolve("missing"))).isZero();
  }

  @Test
  void thisHostsPidMaxIsReadWhole() {
    // The kernel's least pid_max is 301; a file read as its first character only gave 3.
    assertThat(PodCgroupsWiring.pidMax(PodCgroupsWiring.PID_MAX)).isGreaterThanOrEqualTo(301);
  }

  @Test
  void kubepodsIsLimitedToCapacityLessKubeAndSystemReservedNotTheHardEvictionMemory() {
    var machine =
        new io.jkubelet.agent.node.NodeInfo(
            4,
            16L << 30,
            100L << 30,
            java.util.Map.of(),
            new io.jkubelet.agent.node.NodeInfo.SystemInfo(
                "k", "os", "linux", "amd64", "m", "u", "b"));
    var config =
        io.jkubelet.config.KubeletConfiguration.builder()
            .reservations(
                new io.jkubelet.config.ReservationSettings(
                    java.util.Map.of("memory", "2Gi", "cpu", "500m"),
                    java.util.Map.of("memory", "1Gi", "pid", "1000")))
            .build();

    var a = PodCgroupsWiring.allocatable(machine, 32768, config);

    assertThat(a.enforced().memoryBytes()).isEqualTo(13L << 30);
    assertThat(a.enforced().milliCpu()).isEqualTo(3500);
    assertThat(a.enforced().pids()).isEqualTo(31768);
    assertThat(a.evictionHardMemoryBytes()).as("upstream's default 100Mi").isEqualTo(100L << 20);
    assertThat(a.reservation().memoryBytes()).isEqualTo((3L << 30) + (100L << 20));
  }
}
