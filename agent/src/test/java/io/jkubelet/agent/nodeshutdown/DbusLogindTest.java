package io.jkubelet.agent.nodeshutdown;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The real {@link Logind} follows the contract. It runs only where systemd is PID 1 with a system
 * bus ({@code /run/systemd/system} and {@code /run/dbus/system_bus_socket} exist) and as root, as
 * {@code DbusSystemdTest}: elsewhere, such as in CI's containers, it is skipped by assumption. It
 * writes a drop-in of its own under {@code /etc/systemd/logind.conf.d} and removes it.
 */
class DbusLogindTest extends LogindContract {
  private static Logind real;

  @BeforeAll
  static void connect() {
    assumeTrue(
        Files.isDirectory(Path.of("/run/systemd/system")), "systemd is not PID 1 on this machine");
    assumeTrue(Files.exists(Path.of("/run/dbus/system_bus_socket")), "no system bus");
    assumeTrue("root".equals(System.getProperty("user.name")), "only root may reload logind");
    real = Logind.connect();
  }

  @AfterAll
  static void close() {
    if (real != null) {
      real.close();
    }
  }

  @Override
  Logind logind() {
    return real;
  }

  @Override
  Path confDir() {
    return NodeShutdownManager.Options.LOGIND_CONF_DIR;
  }
}
