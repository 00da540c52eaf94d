package io.jkubelet.agent.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class NativeHeapTrimmerTest {
  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final AtomicInteger calls = new AtomicInteger();

  @Test
  void trimsOncePerPeriodUntilStopped() {
    NativeHeapTrimmer t =
        new NativeHeapTrimmer(schedulers, Duration.ofMinutes(1), () -> calls.incrementAndGet() > 0);
    assertThat(t.healthy().ok()).as("not started").isFalse();
    t.start();
    assertThat(t.healthy().ok()).isTrue();
    schedulers.advance(Duration.ofSeconds(59));
    assertThat(calls).hasValue(0);
    schedulers.advance(Duration.ofSeconds(1));
    assertThat(calls).hasValue(1);
    schedulers.advance(Duration.ofMinutes(3));
    assertThat(calls).hasValue(4);
    assertThat(t.trims()).isEqualTo(4);
    t.stop();
    schedulers.advance(Duration.ofMinutes(3));
    assertThat(calls).hasValue(4);
  }

  @Test
  void aTrimThatCannotBeCalledIsNotTriedAgain() {
    NativeHeapTrimmer t =
        new NativeHeapTrimmer(
            schedulers,
            Duration.ofMinutes(1),
            () -> {
              calls.incrementAndGet();
              throw new IOException("the C library's malloc_trim is not reachable");
            });
    t.start();
    schedulers.advance(Duration.ofMinutes(5));
    assertThat(calls).hasValue(1);
    assertThat(t.trims()).isZero();
    assertThat(t.healthy().ok()).as("nothing to trim is not a failure").isTrue();
    t.stop();
  }

  @Test
  void thisProcessesTrimmerCallsTheCLibrary() throws Exception {
    NativeHeapTrimmer t = NativeHeapTrimmer.forThisProcess(schedulers);
    t.start();
    schedulers.advance(NativeHeapTrimmer.PERIOD);
    assertThat(t.trims()).isEqualTo(1);
    t.stop();
  }
}
