package io.jkubelet.agent.nodeshutdown;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FakeLogind} follows the contract, plays the signal and refuses calls once closed. */
class FakeLogindTest extends LogindContract {
  @TempDir Path tmp;
  private FakeLogind fake;

  @Override
  Logind logind() {
    if (fake == null) {
      fake = new FakeLogind(confDir(), Duration.ofSeconds(5));
    }
    return fake;
  }

  @Override
  Path confDir() {
    return tmp.resolve("logind.conf.d");
  }

  @Test
  void playsPrepareForShutdownToItsListenersAndRefusesCallsOnceClosed() {
    List<Boolean> got = new ArrayList<>();
    logind().monitorShutdown(got::add);
    fake.prepareForShutdown(true);
    fake.prepareForShutdown(false);
    assertThat(got).containsExactly(true, false);
    logind().close();
    assertThatThrownBy(() -> logind().inhibitDelayMax()).isInstanceOf(LogindException.class);
  }
}
