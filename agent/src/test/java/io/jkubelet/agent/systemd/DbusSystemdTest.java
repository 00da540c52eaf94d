package io.jkubelet.agent.systemd;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The real {@link Systemd} follows the contract. It runs only where systemd is PID 1 ({@code
 * /run/systemd/system} exists, as libcontainer's {@code IsRunningSystemd} checks) and as root:
 * elsewhere, such as in CI's containers, it is skipped by assumption.
 */
class DbusSystemdTest extends SystemdContract {
  private static Systemd real;

  @BeforeAll
  static void connect() {
    assumeTrue(
        Files.isDirectory(Path.of("/run/systemd/system")), "systemd is not PID 1 on this machine");
    assumeTrue("root".equals(System.getProperty("user.name")), "only root may make slices");
    real = Systemd.connect();
  }

  @AfterAll
  static void close() {
    if (real != null) {
      real.close();
    }
  }

  @Override
  Systemd systemd() {
    return real;
  }
}
