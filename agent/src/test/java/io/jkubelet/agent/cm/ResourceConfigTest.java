package io.jkubelet.agent.cm;

import static io.jkubelet.agent.cm.Pods.container;
import static io.jkubelet.agent.cm.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upstream's {@code TestResourceConfigForPodWithCustomCPUCFSQuotaPeriod}, {@code
 * TestMilliCPUToQuota} (pkg/kubelet/cm/helpers_linux_test.go, v1.20), ported; and the cases they
 * leave out: init containers, pod overhead, the share bounds and cgroup v2's weight.
 */
class ResourceConfigTest {
  private static final long DEFAULT_PERIOD = 100_000;
  private static final long TUNED_PERIOD = 5_000;
  private static final long MI = 1024 * 1024;

  private static ResourceConfig config(Long shares, Long quota, Long period, Long memory) {
    ResourceConfig c = ResourceConfig.EMPTY;
    if (shares != null) {
      c = c.withCpuShares(shares);
    }
    if (quota != null) {
      c = c.withCpuQuota(quota, period);
    }
    if (memory != null) {
      c = c.withMemoryLimit(memory);
    }
    return c;
  }

  static Stream<Arguments> upstream() {
    Pod bestEffort = pod("1", container("", "", "", ""));
    Pod burstableNoLimits = pod("1", container("100m", "100Mi", "", ""));
    Pod burstableWithLimits = pod("1", container("100m", "100Mi", "200m", "200Mi"));
    Pod burstablePartial =
        pod("1", container("100m", "100Mi", "200m", "200Mi"), container("100m", "100Mi", "", ""));
    Pod guaranteed = pod("1", container("100m", "100Mi", "100m", "100Mi"));
    return Stream.of(
        argumentSet("besteffort", bestEffort, true, DEFAULT_PERIOD, config(2L, null, null, null)),
        argumentSet(
            "burstable-no-limits",
            burstableNoLimits,
            true,
            DEFAULT_PERIOD,
            config(102L, null, null, null)),
        argumentSet(
            "burstable-with-limits",
            burstableWithLimits,
            true,
            DEFAULT_PERIOD,
            config(102L, 20_000L, DEFAULT_PERIOD, 200 * MI)),
        argumentSet(
            "burstable-with-limits-no-cpu-enforcement",
            burstableWithLimits,
            false,
            DEFAULT_PERIOD,
            config(102L, -1L, DEFAULT_PERIOD, 200 * MI)),
        argumentSet(
            "burstable-partial-limits",
            burstablePartial,
            true,
            DEFAULT_PERIOD,
            config(204L, null, null, null)),
        argumentSet(
            "burstable-with-limits-with-tuned-quota",
            burstableWithLimits,
            true,
            TUNED_PERIOD,
            config(102L, 1000L, TUNED_PERIOD, 200 * MI)),
        argumentSet(
            "burstable-with-limits-no-cpu-enforcement-with-tuned-quota",
            burstableWithLimits,
            false,
            TUNED_PERIOD,
            config(102L, -1L, TUNED_PERIOD, 200 * MI)),
        argumentSet(
            "burstable-partial-limits-with-tuned-quota",
            burstablePartial,
            true,
            TUNED_PERIOD,
            config(204L, null, null, null)),
        argumentSet(
            "guaranteed",
            guaranteed,
            true,
            DEFAULT_PERIOD,
            config(102L, 10_000L, DEFAULT_PERIOD, 100 * MI)),
        argumentSet(
            "guaranteed-no-cpu-enforcement",
            guaranteed,
            false,
            DEFAULT_PERIOD,
            config(102L, -1L, DEFAULT_PERIOD, 100 * MI)),
        argumentSet(
            "guaranteed-with-tuned-quota",
            guaranteed,
            true,
            TUNED_PERIOD,
            config(102L, 1000L, TUNED_PERIOD, 100 * MI)),
        argumentSet(
            "guaranteed-no-cpu-enforcement-with-tuned-quota",
            guaranteed,
            false,
            TUNED_PERIOD,
            config(102L, -1L, TUNED_PERIOD, 100 * MI)));
  }

  @ParameterizedTest
  @MethodSource("upstream")
  void forPodAsUpstream(Pod pod, boolean cfsQuota, long period, ResourceConfig expected) {
    assertThat(ResourceConfig.forPod(pod, cfsQuota, period)).isEqualTo(expected);
  }

  static Stream<Arguments> beyondUpstreamsTable() {
    return Stream.of(
        argumentSet(
            "init container larger than the app containers' sum",
            pod(
                "1",
                List.of(
                    container("100m", "100Mi", "100m", "100Mi"),
                    container("100m", "100Mi", "100m", "100Mi")),
                List.of(container("500m", "300Mi", "500m", "300Mi"))),
            config(512L, 50_000L, DEFAULT_PERIOD, 300 * MI)),
        argumentSet(
            "init container smaller than the app containers' sum",
            pod(
                "1",
                List.of(
                    container("300m", "100Mi", "300m", "100Mi"),
                    container("300m", "100Mi", "300m", "100Mi")),
                List.of(container("500m", "50Mi", "500m", "50Mi"))),
            config(614L, 60_000L, DEFAULT_PERIOD, 200 * MI)),
        argumentSet(
            "init container without a cpu limit: the app containers decide the quota",
            pod(
                "1",
                List.of(container("100m", "", "200m", "")),
                List.of(container("1", "", "", ""))),
            config(1024L, 20_000L, DEFAULT_PERIOD, null)),
        argumentSet(
            "limits only: requests default to them",
            pod("1", container("", "", "250m", "64Mi")),
            config(256L, 25_000L, DEFAULT_PERIOD, 64 * MI)),
        argumentSet(
            "a quota under 1ms is 1ms",
            pod("1", container("5m", "10Mi", "5m", "10Mi")),
            config(5L, 1000L, DEFAULT_PERIOD, 10 * MI)),
        argumentSet(
            "shares at most 262144",
            pod("1", container("300", "", "", "")),
            config(262144L, null, null, null)));
  }

  @ParameterizedTest
  @MethodSource("beyondUpstreamsTable")
  void initContainersAndDefaulting(Pod pod, ResourceConfig expected) {
    assertThat(ResourceConfig.forPod(pod, true, DEFAULT_PERIOD)).isEqualTo(expected);
  }

  @Test
  void podOverheadIsAddedToRequestsAndToLimitsThatAreSet() {
    Pod guaranteed = pod("1", container("100m", "100Mi", "100m", "100Mi"));
    guaranteed
        .getSpec()
        .setOverhead(Map.of("cpu", new Quantity("50m"), "memory", new Quantity("20Mi")));
    assertThat(ResourceConfig.forPod(guaranteed, true, DEFAULT_PERIOD))
        .isEqualTo(config(153L, 15_000L, DEFAULT_PERIOD, 120 * MI));

    Pod noCpuLimit = pod("1", container("100m", "100Mi", "", "100Mi"));
    noCpuLimit
        .getSpec()
        .setOverhead(Map.of("cpu", new Quantity("50m"), "memory", new Quantity("20Mi")));
    assertThat(ResourceConfig.forPod(noCpuLimit, true, DEFAULT_PERIOD))
        .as("no cpu limit: overhead raises the shares only")
        .isEqualTo(config(153L, null, null, 120 * MI));
  }

  @ParameterizedTest(name = "{0}m over {2}us is {1}")
  @CsvSource({
    "0, 0, 0",
    "5, 1000, 100000",
    "9, 1000, 100000",
    "10, 1000, 100000",
    "200, 20000, 100000",
    "500, 50000, 100000",
    "1000, 100000, 100000",
    "1500, 150000, 100000"
  })
  void milliCpuToQuotaAsUpstream(long milliCpu, long quota, long period) {
    assertThat(CpuUnits.milliCpuToQuota(milliCpu, period)).isEqualTo(quota);
  }

  @ParameterizedTest(name = "{0}m is {1} shares")
  @CsvSource({"0, 2", "1, 2", "2, 2", "100, 102", "1000, 1024", "256000, 262144", "300000, 262144"})
  void milliCpuToSharesWithinTheKernelsBounds(long milliCpu, long shares) {
    assertThat(CpuUnits.milliCpuToShares(milliCpu)).isEqualTo(shares);
  }

  @ParameterizedTest(name = "{0} shares are weight {1}")
  @CsvSource({"2, 1", "102, 4", "1024, 39", "262143, 9999", "262144, 10000", "300000, 10000"})
  void sharesToCgroupV2WeightAsUpstream(long shares, long weight) {
    assertThat(CpuUnits.sharesToWeight(shares)).isEqualTo(weight);
  }
}
