package io.jkubelet.agent.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class ContainerManagersTest {
  @TempDir Path tmp;

  private static final NodeInfo MACHINE =
      new NodeInfo(
          2,
          4L << 30,
          100L << 30,
          Map.of(),
          new NodeInfo.SystemInfo("6.1.0", "Debian", "linux", "amd64", "m", "u", "b"));

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger cmLog = (Logger) LoggerFactory.getLogger(ContainerManagers.class);

  @BeforeEach
  void captureLogs() {
    logs.start();
    cmLog.addAppender(logs);
  }

  @AfterEach
  void releaseLogs() {
    cmLog.detachAppender(logs);
  }

  private List<String> logged() {
    return logs.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
  }

  private static CgroupOptions given(String driver) {
    return new CgroupOptions(
        new CgroupSettings(
            true, "", driver, true, CgroupOptions.DEFAULT_CFS_PERIOD, -1, List.of("pods")),
        CgroupOptions.DEFAULT_CGROUP_FS);
  }

  private static Supplier<Optional<String>> docker(String driver) {
    return () -> Optional.of(driver);
  }

  private static final Supplier<Optional<String>> NOT_ANSWERING =
      () -> {
        throw new RuntimeError(RuntimeError.Kind.OTHER, "connection refused");
      };

  @Test
  void aDriverGivenOtherThanDockersGivesWayToDockersWithAWarningThatNamesBoth() {
    // kubeadm v1.20's join writes the cluster's cgroupDriver into every node's config.yaml: a node
    // whose Docker has another would exit (upstream v1.20) and restart for ever under systemd.
    ContainerManager systemd = create(given("cgroupfs"), MACHINE, docker("systemd"));
    assertThat(systemd.podCgroupRoot()).isEqualTo("/kubepods.slice");
    ContainerManager cgroupfs = create(given("systemd"), MACHINE, docker("cgroupfs"));
    assertThat(cgroupfs.podCgroupRoot()).isEqualTo("/kubepods");
    assertThat(logged())
        .containsExactly(
            "WARN ContainerManager: cgroup driver: the configured \"cgroupfs\" is different from"
                + " docker cgroup driver: \"systemd\"; using Docker's, as upstream v1.28+ uses the"
                + " runtime's (upstream v1.20 exits here: set cgroupDriver to \"systemd\" in the"
                + " configuration to silence this)",
            "WARN ContainerManager: cgroup driver: the configured \"systemd\" is different from"
                + " docker cgroup driver: \"cgroupfs\"; using Docker's, as upstream v1.28+ uses the"
                + " runtime's (upstream v1.20 exits here: set cgroupDriver to \"cgroupfs\" in the"
                + " configuration to silence this)");
  }

  @Test
  void noDriverGivenTakesDockersAndSaysSo() {
    assertThat(CgroupOptions.DEFAULTS.cgroupDriver()).as("not given by default").isEmpty();

    ContainerManager systemd = create(CgroupOptions.DEFAULTS, MACHINE, docker("systemd"));
    assertThat(systemd.podCgroupRoot()).isEqualTo("/kubepods.slice");
    ContainerManager cgroupfs = create(CgroupOptions.DEFAULTS, MACHINE, docker("cgroupfs"));
    assertThat(cgroupfs.podCgroupRoot()).isEqualTo("/kubepods");
    assertThat(logged())
        .containsExactly(
            "INFO ContainerManager: cgroup driver systemd, Docker's (docker info; --cgroup-driver"
                + " not given)",
            "INFO ContainerManager: cgroup driver cgroupfs, Docker's (docker info; --cgroup-driver"
                + " not given)");
  }

  @Test
  void aDriverGivenThatIsDockersIsKeptAndSaysSo() {
    ContainerManager cm = create(given("systemd"), MACHINE, docker("systemd"));
    assertThat(cm.podCgroupRoot()).isEqualTo("/kubepods.slice");
    assertThat(logged())
        .containsExactly(
            "INFO ContainerManager: cgroup driver systemd, as given (Docker's is the same)");
  }

  @Test
  void anEngineThatDoesNotAnswerLeavesTheDriverGivenOrUpstreamsDefault() {
    assertThat(create(given("systemd"), MACHINE, NOT_ANSWERING).podCgroupRoot())
        .isEqualTo("/kubepods.slice");
    assertThat(ContainerManagers.withDriver(CgroupOptions.DEFAULTS, NOT_ANSWERING).cgroupDriver())
        .isEqualTo("cgroupfs");
    assertThat(ContainerManagers.withDriver(CgroupOptions.DEFAULTS, Optional::empty).cgroupDriver())
        .as("Docker does not say")
        .isEqualTo("cgroupfs");
    assertThat(logged())
        .allMatch(l -> l.startsWith("WARN "))
        .anyMatch(l -> l.contains("connection refused") && l.endsWith("using systemd, as given"))
        .anyMatch(l -> l.endsWith("using cgroupfs, upstream's default"));
  }

  @Test
  void noDriverGivenAndADockerDriverJkubeletDoesNotKnowIsRefused() {
    assertThatThrownBy(() -> create(CgroupOptions.DEFAULTS, MACHINE, docker("none")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "--cgroup-driver: docker cgroup driver: \"none\" is not supported: jkubelet needs"
                + " cgroupfs or systemd");
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
        options,
        machine,
        engineDriver,
        KubeletConfiguration.builder().set("failSwapOn", false).build());
  }
}
