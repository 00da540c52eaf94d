package io.jkubelet.agent.systemd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * systemd's {@code Version} property read as libcontainer's {@code systemdVersionAtoi} reads it.
 */
class SystemdVersionTest {
  @Test
  void theFirstNumberIsTheVersion() {
    assertThat(DbusSystemd.parseVersion("252.19-1~deb12u1")).isEqualTo(252);
    assertThat(DbusSystemd.parseVersion("\"v245.4-4ubuntu3\"")).isEqualTo(245);
    assertThatThrownBy(() -> DbusSystemd.parseVersion("unknown"))
        .isInstanceOf(SystemdException.class)
        .hasMessage("cannot parse systemd's version \"unknown\"");
  }
}
