package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MemoTest {
  @Test
  void computesAtMostOncePerTtl() {
    FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
    AtomicInteger calls = new AtomicInteger();
    Memo<Integer> memo = new Memo<>(Duration.ofSeconds(5), clock, calls::incrementAndGet);

    assertThat(memo.get()).isEqualTo(1);
    clock.step(Duration.ofMillis(4999));
    assertThat(memo.get()).isEqualTo(1);
    clock.step(Duration.ofMillis(1));
    assertThat(memo.get()).isEqualTo(2);
    assertThat(calls).hasValue(2);
  }
}
