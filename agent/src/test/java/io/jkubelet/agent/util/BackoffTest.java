package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private final FakeClock clock = new FakeClock();
  private final Backoff backoff = new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5));

  @Test
  void doublesFromTenSecondsUpToFiveMinutes() {
    long[] expected = {10, 20, 40, 80, 160, 300, 300};
    for (long e : expected) {
      backoff.next("k", clock.instant());
      assertThat(backoff.get("k")).isEqualTo(Duration.ofSeconds(e));
      clock.step(Duration.ofSeconds(1));
    }
  }

  @Test
  void isInBackoffUntilTheBackoffHasPassedSinceTheEvent() {
    Instant finished = clock.instant();
    backoff.next("k", finished);
    clock.step(Duration.ofSeconds(9));
    assertThat(backoff.isInBackOffSince("k", finished)).isTrue();
    assertThat(backoff.remaining("k", finished)).isEqualTo(Duration.ofSeconds(1));
    clock.step(Duration.ofSeconds(1));
    assertThat(backoff.isInBackOffSince("k", finished)).isFalse();
  }

  @Test
  void resetsAfterTwiceTheMaximumWithoutAnEvent() {
    for (int i = 0; i < 5; i++) {
      backoff.next("k", clock.instant());
    }
    assertThat(backoff.get("k")).isEqualTo(Duration.ofSeconds(160));
    clock.step(Duration.ofMinutes(10).plusSeconds(1));
    backoff.next("k", clock.instant());
    assertThat(backoff.get("k")).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void keysAreIndependentAndForgettableByPrefix() {
    backoff.next("pod1/a", clock.instant());
    backoff.next("pod1/a", clock.instant());
    backoff.next("pod2/a", clock.instant());
    assertThat(backoff.get("pod1/a")).isEqualTo(Duration.ofSeconds(20));
    assertThat(backoff.get("pod2/a")).isEqualTo(Duration.ofSeconds(10));
    backoff.forgetPrefix("pod1/");
    assertThat(backoff.get("pod1/a")).isZero();
    assertThat(backoff.get("pod2/a")).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void aPolicyDoublesFromTheFirstDelayUpToItsMaximum() {
    Backoff.Policy policy = new Backoff.Policy(Duration.ofMillis(100), Duration.ofSeconds(7));
    Duration d = null;
    StringBuilder seen = new StringBuilder();
    for (int i = 0; i < 9; i++) {
      d = policy.next(d);
      seen.append(d.toMillis()).append(' ');
    }
    assertThat(seen.toString().trim()).isEqualTo("100 200 400 800 1600 3200 6400 7000 7000");
  }
}
