package io.jkubelet.agent.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The webhooks' cache on a fake clock, and the authenticator's use of the token reviewer. */
class TtlCacheTest {
  @Test
  void anEntryLivesForItsTtlOnTheClock() {
    FakeClock clock = new FakeClock();
    TtlCache<String, Boolean> cache = new TtlCache<>(clock, 10);
    cache.put("allowed", true, Duration.ofMinutes(5));
    cache.put("denied", false, Duration.ofSeconds(30));
    cache.put("never", true, Duration.ZERO);
    clock.step(Duration.ofSeconds(29));
    assertThat(cache.get("denied")).contains(false);
    assertThat(cache.get("never")).isEmpty();
    clock.step(Duration.ofSeconds(1));
    assertThat(cache.get("denied")).isEmpty();
    assertThat(cache.get("allowed")).contains(true);
    clock.step(Duration.ofMinutes(5));
    assertThat(cache.get("allowed")).isEmpty();
  }

  @Test
  void theLeastRecentlyUsedEntryGoesWhenFull() {
    TtlCache<Integer, Integer> cache = new TtlCache<>(new FakeClock(), 2);
    cache.put(1, 1, Duration.ofMinutes(1));
    cache.put(2, 2, Duration.ofMinutes(1));
    cache.get(1);
    cache.put(3, 3, Duration.ofMinutes(1));
    assertThat(cache.get(2)).isEmpty();
    assertThat(cache.get(1)).contains(1);
    assertThat(cache.get(3)).contains(3);
    assertThat(cache.size()).isEqualTo(2);
    assertThat(cache.evictions()).isEqualTo(1);
  }

  @Test
  void aReviewerFailureIsNeverAnonymous() {
    AtomicInteger calls = new AtomicInteger();
    Authenticator a =
        new Authenticator(
            true,
            Optional.of(
                t -> {
                  calls.incrementAndGet();
                  throw new IllegalStateException("API server down");
                }));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> a.authenticate(new Credentials(List.of(), Optional.of("tok"))))
        .hasMessageContaining("API server down");
    assertThat(calls).hasValue(1);
    assertThat(a.authenticate(new Credentials(List.of(), Optional.empty())))
        .isEqualTo(new Authentication.Authenticated(Subject.ANONYMOUS));
  }
}
