package io.jkubelet.agent.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.jkubelet.config.CgroupSettings;
import io.jkubelet.config.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CgroupOptionsTest {
  private record Raw(
      boolean perQos,
      String root,
      String driver,
      Duration period,
      long pids,
      List<String> enforce) {
    static final Raw DEFAULTS = new Raw(true, "", "", Duration.ofMillis(100), -1, List.of("pods"));

    CgroupOptions options() {
      return new CgroupOptions(
          new CgroupSettings(perQos, root, driver, true, period, pids, enforce),
          CgroupOptions.DEFAULT_CGROUP_FS);
    }
  }

  @Test
  void defaultsAreUpstreams() {
    CgroupOptions o = Raw.DEFAULTS.options();
    assertThat(o).isEqualTo(CgroupOptions.DEFAULTS);
    assertThat(o.cgroupRoot()).as("\"\" is the root").isEqualTo("/");
    assertThat(o.cgroupDriver()).as("not given: Docker's, once asked").isEmpty();
    assertThat(o.driver()).as("until then, upstream v1.20's").isEqualTo(CgroupDriver.CGROUPFS);
    assertThat(o.withDriver(CgroupDriver.SYSTEMD).cgroupDriver()).isEqualTo("systemd");
    assertThat(o.cpuPeriodMicros()).isEqualTo(100_000);
    assertThat(o.enforcesPods()).isTrue();
    assertThat(o.kubepods().toCgroupfs()).isEqualTo("/kubepods");
    assertThat(
            new Raw(true, "/", "cgroupfs", Duration.ofMillis(100), -7, List.of())
                .options()
                .podPidsLimit())
        .as("a negative limit is -1, as upstream defaults it")
        .isEqualTo(-1);
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        argumentSet(
            "driver",
            (UnaryOperator<Raw>) r -> new Raw(true, "", "docker", r.period(), -1, r.enforce()),
            "cgroupDriver: must be cgroupfs or systemd, got \"docker\""),
        argumentSet(
            "relative root",
            (UnaryOperator<Raw>)
                r -> new Raw(true, "pods", "cgroupfs", r.period(), -1, r.enforce()),
            "cgroupRoot: must be an absolute cgroup path such as /, got \"pods\""),
        argumentSet(
            "period over 1s",
            (UnaryOperator<Raw>)
                r -> new Raw(true, "", "cgroupfs", Duration.ofMillis(1001), -1, r.enforce()),
            "cpuCFSQuotaPeriod: must be between 1µs and 1s, inclusive, got 1.001s"),
        argumentSet(
            "period under 1us",
            (UnaryOperator<Raw>)
                r -> new Raw(true, "", "cgroupfs", Duration.ofNanos(999), -1, r.enforce()),
            "cpuCFSQuotaPeriod: must be between 1µs and 1s, inclusive, got 999ns"),
        argumentSet(
            "unknown enforcement",
            (UnaryOperator<Raw>) r -> new Raw(true, "", "cgroupfs", r.period(), -1, List.of("pod")),
            "enforceNodeAllocatable: option \"pod\" is not valid: use pods, system-reserved,"
                + " kube-reserved or none"),
        argumentSet(
            "reserved cgroups",
            (UnaryOperator<Raw>)
                r ->
                    new Raw(true, "", "cgroupfs", r.period(), -1, List.of("pods", "kube-reserved")),
            "enforceNodeAllocatable: \"kube-reserved\" needs kubeReservedCgroup, which jkubelet does"
                + " not support yet"),
        argumentSet(
            "none with others",
            (UnaryOperator<Raw>)
                r -> new Raw(true, "", "cgroupfs", r.period(), -1, List.of("none", "pods")),
            "enforceNodeAllocatable: may not contain other enforcements when 'none' is given"),
        argumentSet(
            "enforcement without cgroupsPerQOS",
            (UnaryOperator<Raw>)
                r -> new Raw(false, "", "cgroupfs", r.period(), -1, List.of("pods")),
            "enforceNodeAllocatable: is not supported unless cgroupsPerQOS is true: with"
                + " --cgroups-per-qos=false, give --enforce-node-allocatable= (an empty list) too"));
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void invalidValuesNameTheirField(UnaryOperator<Raw> change, String message) {
    assertThatThrownBy(() -> change.apply(Raw.DEFAULTS).options())
        .isInstanceOf(ConfigException.class)
        .hasMessage(message);
  }

  @Test
  void withoutCgroupsPerQosTheManagerIsNone() {
    CgroupOptions off =
        new Raw(false, "", "cgroupfs", Duration.ofMillis(100), -1, List.of()).options();
    ContainerManager none =
        ContainerManager.create(off, NodeAllocatable.of(NodeAllocatable.Amounts.NONE));
    assertThat(none).isSameAs(ContainerManager.NONE);
    none.start();
    assertThat(none.healthy().ok()).isTrue();
    assertThat(none.cgroupParent(Pods.pod("1", Pods.container("1", "", "", "")))).isEmpty();
    assertThat(none.cleanup(java.util.Set.of())).isEmpty();
  }
}
