package io.jkubelet.agent.cm;

import static io.jkubelet.agent.cm.Pods.container;
import static io.jkubelet.agent.cm.Pods.pod;
import static io.jkubelet.agent.cm.Pods.resources;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.TestPods;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Upstream's {@code TestGetPodQOS} (pkg/apis/core/v1/helper/qos/qos_test.go, v1.20), ported. */
class QosClassTest {
  static Stream<Arguments> upstream() {
    return Stream.of(
        argumentSet(
            "guaranteed",
            pod("1", container("100m", "100Mi", "100m", "100Mi")),
            QosClass.GUARANTEED),
        argumentSet(
            "guaranteed-guaranteed",
            pod(
                "1",
                container("100m", "100Mi", "100m", "100Mi"),
                container("100m", "100Mi", "100m", "100Mi")),
            QosClass.GUARANTEED),
        argumentSet(
            "best-effort-best-effort",
            pod("1", container("", "", "", ""), container("", "", "", "")),
            QosClass.BEST_EFFORT),
        argumentSet("best-effort", pod("1", container("", "", "", "")), QosClass.BEST_EFFORT),
        argumentSet(
            "best-effort-burstable",
            pod("1", container("", "", "", ""), container("1", "", "2", "")),
            QosClass.BURSTABLE),
        argumentSet(
            "best-effort-guaranteed",
            pod("1", container("", "", "", ""), container("10m", "100Mi", "10m", "100Mi")),
            QosClass.BURSTABLE),
        argumentSet(
            "burstable-cpu-guaranteed-memory",
            pod("1", container("", "100Mi", "", "100Mi")),
            QosClass.BURSTABLE),
        argumentSet(
            "burstable-no-limits",
            pod("1", container("100m", "100Mi", "", "")),
            QosClass.BURSTABLE),
        argumentSet(
            "burstable-guaranteed",
            pod(
                "1",
                container("1", "100Mi", "2", "100Mi"),
                container("100m", "100Mi", "100m", "100Mi")),
            QosClass.BURSTABLE),
        argumentSet(
            "burstable-unbounded-but-requests-match-limits",
            pod(
                "1",
                container("100m", "100Mi", "200m", "200Mi"),
                container("100m", "100Mi", "", "")),
            QosClass.BURSTABLE),
        argumentSet(
            "burstable-1",
            pod("1", container("10m", "100Mi", "100m", "200Mi")),
            QosClass.BURSTABLE),
        argumentSet(
            "burstable-2", pod("1", container("0", "0", "100m", "200Mi")), QosClass.BURSTABLE),
        argumentSet(
            "best-effort-hugepages",
            pod("1", container(hugepages(resources("0", "0")), hugepages(resources("0", "0")))),
            QosClass.BEST_EFFORT),
        argumentSet(
            "init-container",
            pod(
                "1",
                List.of(container("", "", "", "")),
                List.of(container("10m", "100Mi", "100m", "200Mi"))),
            QosClass.BURSTABLE));
  }

  @ParameterizedTest
  @MethodSource("upstream")
  void asUpstream(Pod pod, QosClass expected) {
    assertThat(QosClass.of(pod)).isEqualTo(expected);
  }

  @org.junit.jupiter.api.Test
  void apiNamesAndTierNames() {
    assertThat(QosClass.BEST_EFFORT.apiName()).isEqualTo("BestEffort");
    assertThat(QosClass.BEST_EFFORT.cgroupName()).isEqualTo("besteffort");
    assertThat(QosClass.BURSTABLE.cgroupName()).isEqualTo("burstable");
  }

  static Stream<Arguments> defaulting() {
    return Stream.of(
        argumentSet(
            "limits only: requested at the limits, as the API defaults them",
            pod("1", container("", "", "1", "1Gi")),
            QosClass.GUARANTEED),
        argumentSet(
            "a guaranteed init container under a guaranteed app container",
            pod(
                "1",
                List.of(container("", "", "100m", "100Mi")),
                List.of(container("200m", "50Mi", "200m", "50Mi"))),
            QosClass.GUARANTEED),
        argumentSet(
            "an init container without limits",
            pod(
                "1",
                List.of(container("100m", "100Mi", "100m", "100Mi")),
                List.of(container("10m", "", "", ""))),
            QosClass.BURSTABLE),
        argumentSet(
            "a zero cpu limit does not count: Burstable, not Guaranteed",
            pod("1", container("0", "64Mi", "0", "64Mi")),
            QosClass.BURSTABLE),
        argumentSet(
            "a zero memory limit in an init container does not count",
            pod(
                "1",
                List.of(container("100m", "100Mi", "100m", "100Mi")),
                List.of(container("100m", "0", "100m", "0"))),
            QosClass.BURSTABLE),
        argumentSet(
            "only extended resources",
            pod("1", container(Map.of("nvidia.com/gpu", new Quantity("1")), Map.of())),
            QosClass.BEST_EFFORT));
  }

  @ParameterizedTest
  @MethodSource("defaulting")
  void requestsDefaultToLimitsAndOnlyCpuAndMemoryCount(Pod pod, QosClass expected) {
    assertThat(QosClass.of(pod)).isEqualTo(expected);
  }

  /** Moved from the status package's own copy of the class, which now reads this one. */
  @org.junit.jupiter.api.Test
  void qosClassFollowsRequestsAndLimits() {
    Pod pod =
        TestPods.parse(
            """
            apiVersion: v1
            kind: Pod
            metadata: {name: p, namespace: default, uid: u1}
            spec:
              containers:
              - name: a
                image: 'jkubelet/busybox:1.35'
                resources: {limits: {cpu: 100m, memory: 16Mi}}
            """);
    assertThat(QosClass.of(pod)).isEqualTo(QosClass.GUARANTEED);
    assertThat(QosClass.of(TestPods.simple("u", "p", "c"))).isEqualTo(QosClass.BEST_EFFORT);
    pod.getSpec().getContainers().get(0).getResources().getLimits().remove("memory");
    assertThat(QosClass.of(pod)).isEqualTo(QosClass.BURSTABLE);
  }

  private static Map<String, Quantity> hugepages(Map<String, Quantity> m) {
    m.put("hugepages-2Mi", new Quantity("1Gi"));
    return m;
  }
}
