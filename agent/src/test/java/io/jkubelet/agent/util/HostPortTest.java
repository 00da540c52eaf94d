package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HostPortTest {
  @Test
  void anIpv6AddressIsBracketedOnce() {
    assertThat(HostPort.host("fd00::1")).isEqualTo("[fd00::1]");
    assertThat(HostPort.host("[fd00::1]")).isEqualTo("[fd00::1]");
    assertThat(HostPort.join("fd00::1", 8080)).isEqualTo("[fd00::1]:8080");
  }

  @Test
  void namesAndIpv4AddressesStayAsTheyAre() {
    assertThat(HostPort.host("10.1.2.3")).isEqualTo("10.1.2.3");
    assertThat(HostPort.join("example.internal", 443)).isEqualTo("example.internal:443");
    assertThat(HostPort.host(null)).isNull();
  }
}
