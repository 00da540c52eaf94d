package io.jkubelet.agent.cm;

import static io.jkubelet.agent.cm.Pods.container;
import static io.jkubelet.agent.cm.Pods.pod;
import static io.jkubelet.agent.cm.Pods.resources;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Upstream's {@code TestGetContainerOOMScoreAdjust} (pkg/kubelet/qos/policy_test.go), ported. */
class OomScoreAdjTest {
  private static final long STANDARD_MEMORY = 8_000_000_000L;

  static Stream<Arguments> upstream() {
    Pod critical = pod("1", container("", "", "", ""));
    critical.getSpec().setPriority(OomScoreAdj.SYSTEM_CRITICAL_PRIORITY);
    return Stream.of(
        argumentSet("cpuLimit", pod("1", container("", "", "10", "")), 4_000_000_000L, 999, 999),
        argumentSet(
            "memoryLimitCPURequest",
            pod("1", container(resources("0", ""), resources("", "10G"))),
            8_000_000_000L,
            999,
            999),
        argumentSet(
            "zeroMemoryLimit", pod("1", container("", "", "", "0")), 7230457451L, 1000, 1000),
        argumentSet(
            "noRequestLimit", pod("1", container("", "", "", "")), 4_000_000_000L, 1000, 1000),
        argumentSet(
            "equalRequestLimitCPUMemory",
            pod("1", container("5m", "10G", "5m", "10G")),
            123456789L,
            -997,
            -997),
        argumentSet(
            "cpuUnlimitedMemoryLimitedWithRequests",
            pod("1", container("5m", Long.toString(STANDARD_MEMORY / 2), "", "10G")),
            STANDARD_MEMORY,
            495,
            505),
        argumentSet(
            "requestNoLimit",
            pod("1", container("5m", Long.toString(STANDARD_MEMORY - 1), "", "")),
            STANDARD_MEMORY,
            3,
            3),
        argumentSet("critical", critical, 4_000_000_000L, -997, -997));
  }

  @ParameterizedTest
  @MethodSource("upstream")
  void asUpstream(Pod pod, long memoryCapacity, int low, int high) {
    int adj = OomScoreAdj.container(pod, pod.getSpec().getContainers().get(0), memoryCapacity);
    assertThat(adj).isBetween(low, high);
  }

  @Test
  void burstableIsOneThousandLessItsShareOfMemory() {
    Pod tenth = pod("1", container("", "800M", "", ""));
    assertThat(
            OomScoreAdj.container(tenth, tenth.getSpec().getContainers().get(0), STANDARD_MEMORY))
        .isEqualTo(900);
  }

  @Test
  void staticAndMirrorPodsAreCriticalApiPodsAreNot() {
    Pod fromFile = pod("1", container("", "", "", ""));
    fromFile.getMetadata().setAnnotations(Map.of("kubernetes.io/config.source", "file"));
    Pod mirror = pod("2", container("", "", "", ""));
    mirror.getMetadata().setAnnotations(Map.of("kubernetes.io/config.mirror", "abc"));
    Pod fromApi = pod("3", container("", "", "", ""));
    fromApi.getMetadata().setAnnotations(Map.of("kubernetes.io/config.source", "api"));
    Pod belowCritical = pod("4", container("", "", "", ""));
    belowCritical.getSpec().setPriority(OomScoreAdj.SYSTEM_CRITICAL_PRIORITY - 1);

    assertThat(OomScoreAdj.critical(fromFile)).isTrue();
    assertThat(OomScoreAdj.critical(mirror)).isTrue();
    assertThat(OomScoreAdj.critical(fromApi)).isFalse();
    assertThat(OomScoreAdj.critical(belowCritical)).isFalse();
    assertThat(OomScoreAdj.container(fromFile, fromFile.getSpec().getContainers().get(0), 1000))
        .isEqualTo(-997);
    assertThat(OomScoreAdj.container(fromApi, fromApi.getSpec().getContainers().get(0), 1000))
        .isEqualTo(1000);
  }

  @Test
  void theSandboxAndTheKubeletHaveUpstreamsConstants() {
    assertThat(OomScoreAdj.SANDBOX).isEqualTo(-998);
    assertThat(OomScoreAdj.KUBELET).isEqualTo(-999);
    Pod p = pod("1", container("", "", "", ""));
    assertThatThrownBy(() -> OomScoreAdj.container(p, p.getSpec().getContainers().get(0), 0))
        .hasMessageContaining("memoryCapacity must be positive");
  }
}
