package io.jkubelet.agent.nodeshutdown;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What every {@link Logind} does, run against {@link FakeLogind} and, on a machine whose PID 1 is
 * systemd with logind on its system bus, against the real one ({@link DbusLogindTest}): what the
 * node shutdown manager relies on.
 */
abstract class LogindContract {
  /** A drop-in of the contract's own, never the kubelet's. */
  static final String DROP_IN = "98-jkubelet-contract-test.conf";

  abstract Logind logind();

  /** The directory logind reads its drop-ins from. */
  abstract Path confDir();

  @Test
  void itsDelayIsADuration() {
    assertThat(logind().inhibitDelayMax()).isPositive();
  }

  @Test
  void aDelayLockIsListedWhileHeldAndGoneOnceLetGo() {
    Logind.InhibitLock lock = logind().inhibitShutdown();
    try {
      assertThat(logind().inhibitors())
          .anySatisfy(
              i -> {
                assertThat(i.what()).isEqualTo("shutdown");
                assertThat(i.who()).isEqualTo("kubelet");
                assertThat(i.why()).isEqualTo("Kubelet needs time to handle node shutdown");
                assertThat(i.mode()).isEqualTo("delay");
              });
    } finally {
      lock.close();
      lock.close();
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> logind().inhibitors().stream().noneMatch(i -> i.who().equals("kubelet")));
  }

  @Test
  void aDropInRaisesTheDelayOnceLogindReadsItsConfigurationAgain() throws Exception {
    Duration before = logind().inhibitDelayMax();
    Duration raised = before.plusSeconds(37).withNanos(0);
    Files.createDirectories(confDir());
    Path f = confDir().resolve(DROP_IN);
    Files.writeString(f, "[Login]\nInhibitDelayMaxSec=" + raised.toSeconds() + "\n");
    try {
      logind().reloadConfig();
      await().atMost(Duration.ofSeconds(5)).until(() -> logind().inhibitDelayMax().equals(raised));
    } finally {
      Files.deleteIfExists(f);
      logind().reloadConfig();
    }
  }
}
