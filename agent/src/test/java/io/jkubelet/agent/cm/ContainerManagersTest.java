package io.jkubelet.agent.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.node.NodeInfo;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.config.CgroupSettings;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.KubeletConfiguration;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainerManagersTest {
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
    assertThatThrownBy(() -> create(CgroupOptions.DEFAULTS, MACHINE, () -> Optional.of("systemd")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--cgroup-driver")
        .hasMessageContaining(
            "misconfiguration: kubelet cgroup driver: \"cgroupfs\" is different from docker"
                + " cgroup driver: \"systemd\"");
  }

  @Test
  void theSameDriverOrAnEngineThatDoesNotAnswerGivesTheManager() {
    assertThat(create(CgroupOptions.DEFAULTS, MACHINE, () -> Optional.of("cgroupfs")))
        .isNotSameAs(ContainerManager.NONE);
    assertThat(
            create(
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
            new CgroupSettings(
                false, "/", "cgroupfs", true, CgroupOptions.DEFAULT_CFS_PERIOD, -1, List.of()),
            CgroupOptions.DEFAULT_CGROUP_FS);
    assertThat(
            create(
                off,
                MACHINE,
                () -> {
                  throw new AssertionError("Docker asked");
                }))
        .isSameAs(ContainerManager.NONE);
  }

  @Test
  void aMissingPidMaxIsZero() {
    assertThat(ContainerManagers.pidMax(tmp.resolve("missing"))).isZero();
  }

  @Test
  void thisHostsPidMaxIsReadWhole() {
    // The kernel's least pid_max is 301; a file read as its first character only gave 3.
    assertThat(ContainerManagers.pidMax(ContainerManagers.PID_MAX)).isGreaterThanOrEqualTo(301);
  }

  /** The manager for the default configuration (no reservations). */
  private static ContainerManager create(
      CgroupOptions options, NodeInfo machine, Supplier<Optional<String>> engineDriver) {
    return ContainerManagers.create(
        options, machine, engineDriver, KubeletConfiguration.builder().build());
  }
}
