package io.jkubelet.agent.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.jkubelet.agent.cm.NodeAllocatable.Amounts;
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
    return new Amounts(milliCpu, memory, 0);
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
    assertThat(new NodeAllocatable(capacity, kube, system, eviction).enforced())
        .isEqualTo(expected);
  }

  @Test
  void kubepodsGetsSharesMemoryAndPidsOfTheEnforcedAmountsOrOfTheCapacity() {
    NodeAllocatable node =
        new NodeAllocatable(
            new Amounts(4000, 8 * GI, 4_194_304),
            new Amounts(500, GI, 0),
            new Amounts(500, GI, 1000),
            100 * MI);
    assertThat(node.kubepodsConfig(true))
        .isEqualTo(ResourceConfig.shares(3072).withMemoryLimit(6 * GI).withPidsLimit(4_193_304));
    assertThat(node.kubepodsConfig(false))
        .as("without pods enforced: the capacity, still with shares")
        .isEqualTo(ResourceConfig.shares(4096).withMemoryLimit(8 * GI).withPidsLimit(4_194_304));
    assertThat(node.reservation()).isEqualTo(new Amounts(1000, 2 * GI + 100 * MI, 1000));
    assertThat(NodeAllocatable.of(new Amounts(1000, GI, 0)).kubepodsConfig(true))
        .as("pids unknown: no pids limit")
        .isEqualTo(ResourceConfig.shares(1024).withMemoryLimit(GI));
  }
}
