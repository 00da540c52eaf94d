package io.jkubelet.agent.systemd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.freedesktop.dbus.exceptions.DBusExecutionException;
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

  @Test
  void errorsAreNamedByTheClassDbusJavaThrows() {
    assertThat(org.freedesktop.systemd1.UnitExists.class.getName())
        .as("dbus-java finds the class by the error's name")
        .isEqualTo(SystemdException.UNIT_EXISTS);
    assertThat(org.freedesktop.systemd1.NoSuchUnit.class.getName())
        .isEqualTo(SystemdException.NO_SUCH_UNIT);
    assertThat(DbusSystemd.errorName(new org.freedesktop.systemd1.UnitExists("loaded")))
        .isEqualTo(SystemdException.UNIT_EXISTS);
    assertThat(DbusSystemd.errorName(new org.freedesktop.dbus.errors.AccessDenied("no")))
        .isEqualTo("org.freedesktop.DBus.Error.AccessDenied");
    assertThat(DbusSystemd.errorName(new DBusExecutionException("other")))
        .isEqualTo(SystemdException.FAILED);
  }
}
