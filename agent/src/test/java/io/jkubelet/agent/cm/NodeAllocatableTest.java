package io.jkubelet.agent.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.jkubelet.agent.cm.NodeAllocatable.Amounts;
import io.jkubelet.agent.node.NodeInfo;
import io.jkubelet.config.EvictionSettings;
import io.jkubelet.config.ReservationSettings;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upstream's {@code TestNodeAllocatableForEnforcement} (node_container_manager_linux_test.go),
 * ported: the hard eviction threshold is not part of what {@code kubepods} is limited to.
 */
class NodeAllocatableTest {
  private static final long MI = 1024 * 1024;
  private static final long GI = 1024 * MI;

  private static Amounts amounts(long milliCpu, long memory) {
    return new Amounts(milliCpu, memory, 0, 0);
  }

  static Stream<Arguments> upstream() {
    return Stream.of(
        argumentSet(
            "kube and system reserved",
            amounts(100, 100 * MI),
            amounts(50, 50 * MI),
            0L,
            amounts(10_000, 10 * GI),
            amounts(9850, 10090 * MI)),
        argumentSet(
            "a 100Mi hard eviction threshold changes nothing",
            amounts(100, 100 * MI),
            amounts(50, 50 * MI),
            100 * MI,
            amounts(10_000, 10 * GI),
            amounts(9850, 10090 * MI)),
        argumentSet(
            "nothing reserved",
            Amounts.NONE,
            Amounts.NONE,
            0L,
            amounts(10_000, 10 * GI),
            amounts(10_000, 10 * GI)),
        argumentSet(
            "only system cpu",
            amounts(0, 100 * MI),
            amounts(50, 50 * MI),
            0L,
            amounts(10_000, 10 * GI),
            amounts(9950, 10090 * MI)),
        argumentSet(
            "only kube cpu",
            amounts(50, 100 * MI),
            amounts(0, 50 * MI),
            0L,
            amounts(10_000, 10 * GI),
            amounts(9950, 10090 * MI)),
        argumentSet(
            "more reserved than there is: 0",
            amounts(0, 100 * MI),
            amounts(0, 50 * MI),
            0L,
            amounts(10_000, 0),
            amounts(10_000, 0)));
  }

  @ParameterizedTest
  @MethodSource("upstream")
  void enforcedAsUpstream(
      Amounts kube, Amounts system, long eviction, Amounts capacity, Amounts expected) {
    assertThat(new NodeAllocatable(capacity, kube, system, amounts(0, eviction), 0).enforced())
        .isEqualTo(expected);
  }

  @Test
  void kubepodsGetsSharesMemoryAndPidsOfTheEnforcedAmountsOrOfTheCapacity() {
    NodeAllocatable node =
        new NodeAllocatable(
            new Amounts(4000, 8 * GI, 0, 4_194_304),
            new Amounts(500, GI, 0, 0),
            new Amounts(500, GI, 0, 1000),
            amounts(0, 100 * MI),
            0);
    assertThat(node.kubepodsConfig(true))
        .isEqualTo(ResourceConfig.shares(3072).withMemoryLimit(6 * GI).withPidsLimit(4_193_304));
    assertThat(node.kubepodsConfig(false))
        .as("without pods enforced: the capacity, still with shares")
        .isEqualTo(ResourceConfig.shares(4096).withMemoryLimit(8 * GI).withPidsLimit(4_194_304));
    assertThat(node.reservation()).isEqualTo(new Amounts(1000, 2 * GI + 100 * MI, 0, 1000));
    assertThat(NodeAllocatable.of(new Amounts(1000, GI, 0, 0)).kubepodsConfig(true))
        .as("pids unknown: no pids limit")
        .isEqualTo(ResourceConfig.shares(1024).withMemoryLimit(GI));
  }

  private static NodeInfo machine(Map<String, Long> hugePages) {
    return new NodeInfo(
        4,
        16 * GI,
        100 * GI,
        hugePages,
        new NodeInfo.SystemInfo("k", "os", "linux", "amd64", "m", "u", "b"));
  }

  private static final ReservationSettings RESERVED =
      new ReservationSettings(
          Map.of("memory", "2Gi", "cpu", "500m", "ephemeral-storage", "1Gi"),
          Map.of("memory", "1Gi", "pid", "1000"));

  /** Moved from the cli's own computation of it, which now calls this one. */
  @Test
  void fromTheMachineKubepodsIsLimitedToCapacityLessKubeAndSystemReservedNotTheHardEviction() {
    var a = NodeAllocatable.of(machine(Map.of()), 32768, RESERVED, EvictionSettings.DEFAULTS);

    assertThat(a.capacity()).isEqualTo(new Amounts(4000, 16 * GI, 100 * GI, 32768));
    assertThat(a.enforced().memoryBytes()).isEqualTo(13 * GI);
    assertThat(a.enforced().milliCpu()).isEqualTo(3500);
    assertThat(a.enforced().pids()).isEqualTo(31768);
    assertThat(a.evictionHard().memoryBytes()).as("upstream's default 100Mi").isEqualTo(100 * MI);
    assertThat(a.reservation().memoryBytes()).isEqualTo(3 * GI + 100 * MI);
  }

  /**
   * Upstream's {@code GetNodeAllocatableReservation}, which the Node's status subtracts: kube and
   * system reserved plus the hard memory.available and nodefs.available thresholds (a percentage of
   * the capacity); nothing for a resource nothing is held back of. Was the eviction wiring's copy.
   */
  @Test
  void reservationByResourceAddsTheHardEvictionThresholds() {
    EvictionSettings eviction =
        evictionHard(Map.of("memory.available", "500Mi", "nodefs.available", "10Gi"));
    var a = NodeAllocatable.of(machine(Map.of()), 0, RESERVED, eviction);
    assertThat(a.reservationByResource())
        .containsOnly(
            Map.entry("cpu", 500L),
            Map.entry("memory", 3 * GI + 500 * MI),
            Map.entry("ephemeral-storage", GI + 10 * GI));
    assertThat(
            NodeAllocatable.of(
                    machine(Map.of()), 0, ReservationSettings.DEFAULTS, evictionHard(Map.of()))
                .reservationByResource())
        .isEmpty();
  }

  /** What the pod admitter offers: capacity less the reservation, memory less the huge pages. */
  @Test
  void allocatableIsTheCapacityLessTheReservationAndMemoryLessHugePages() {
    var a =
        NodeAllocatable.of(
            machine(Map.of("2Mi", 512 * MI, "1Gi", GI)), 0, RESERVED, EvictionSettings.DEFAULTS);
    assertThat(a.allocatable())
        .isEqualTo(
            new Amounts(
                3500,
                16 * GI - 3 * GI - 100 * MI - 512 * MI - GI,
                100 * GI - GI - a.evictionHard().ephemeralStorageBytes(),
                0));
    assertThat(a.evictionHard().ephemeralStorageBytes())
        .as("the default nodefs.available<10%, taken as upstream's float32")
        .isCloseTo(10 * GI, org.assertj.core.data.Offset.offset(1000L));
    var starved =
        NodeAllocatable.of(
            new NodeInfo(
                1,
                GI,
                GI,
                Map.of("1Gi", GI),
                new NodeInfo.SystemInfo("k", "os", "linux", "amd64", "m", "u", "b")),
            0,
            new ReservationSettings(Map.of("cpu", "2"), Map.of()),
            evictionHard(Map.of("memory.available", "100Mi")));
    assertThat(starved.allocatable()).as("never below 0").isEqualTo(new Amounts(0, 0, GI, 0));
  }

  /** The default eviction settings with these hard thresholds. */
  private static EvictionSettings evictionHard(Map<String, String> hard) {
    return io.jkubelet.config.KubeletConfiguration.builder()
        .set("evictionHard", hard)
        .build()
        .resources()
        .eviction();
  }
}
