package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RlimitTest {
  @Test
  void setsTheSoftAndHardLimitOfOpenFiles() {
    long[] before = Rlimit.openFiles();
    assertThat(before).as("getrlimit through the C library").isNotNull();
    // The hard limit itself: any process may raise its soft limit to it, and keep it.
    assertThat(Rlimit.setOpenFiles(before[1])).isTrue();
    assertThat(Rlimit.openFiles()).containsExactly(before[1], before[1]);
  }

  @Test
  void aLimitTheKernelRefusesIsLoggedNotThrown() {
    assertThat(Rlimit.setOpenFiles(-2)).isFalse();
  }
}
