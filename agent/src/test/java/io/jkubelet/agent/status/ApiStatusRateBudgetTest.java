package io.jkubelet.agent.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestApiServer;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.TokenBucket;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The status manager's rate budget, on a fake clock. */
@Timeout(60)
class ApiStatusRateBudgetTest {
  private final FakeClock clock = new FakeClock();

  @Test
  void aBurstIsAvailableAtOnceThenTokensRefillAtQps() {
    TokenBucket bucket = new TokenBucket(clock, 2, 3);

    for (int i = 0; i < 3; i++) {
      assertThat(bucket.tryAcquire()).as("token %d of the burst", i).isZero();
    }
    assertThat(bucket.tryAcquire()).isEqualTo(Duration.ofMillis(500));

    clock.step(Duration.ofMillis(499));
    assertThat(bucket.tryAcquire()).isEqualTo(Duration.ofMillis(1));
    clock.step(Duration.ofMillis(1));
    assertThat(bucket.tryAcquire()).isZero();
    assertThat(bucket.tryAcquire()).isPositive();
  }

  @Test
  void tokensNeverExceedTheBurst() {
    TokenBucket bucket = new TokenBucket(clock, 5, 2);

    clock.step(Duration.ofHours(1));

    assertThat(bucket.available()).isEqualTo(2.0);
    assertThat(bucket.tryAcquire()).isZero();
    assertThat(bucket.tryAcquire()).isZero();
    assertThat(bucket.tryAcquire()).isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void aBudgetNeedsPositiveQpsAndBurst() {
    assertThatThrownBy(() -> new TokenBucket(clock, 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("qps 0");
    assertThatThrownBy(() -> new TokenBucket(clock, 1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("burst 0");
  }

  /**
   * Against a closed port every request fails at once, so the failure counter counts requests: with
   * a burst of 2 and 1 qps on a clock that does not move, the manager makes 2 requests and then
   * waits for the clock.
   */
  @Test
  void theManagerSpendsNoMoreRequestsThanTheBudget() throws IOException {
    ApiStatusManager manager =
        new ApiStatusManager(
            TestApiServer.unreachableClient(closedPort()),
            clock,
            1,
            2,
            p -> false,
            uid -> Optional.empty(),
            Duration.ofSeconds(10));
    manager.start();
    try {
      for (int i = 0; i < 5; i++) {
        Pod pod = TestPods.simple("uid-" + i, "p" + i, "app");
        manager.setPodStatus(
            pod, ApiStatusFixtures.pending(pod, Instant.parse("2026-01-01T00:00:00Z")));
      }

      await().atMost(Duration.ofSeconds(10)).until(() -> manager.stats().failures() == 2);
      await()
          .during(Duration.ofMillis(1500))
          .atMost(Duration.ofSeconds(3))
          .until(() -> manager.stats().failures() == 2);

      clock.step(Duration.ofSeconds(1));

      await().atMost(Duration.ofSeconds(5)).until(() -> manager.stats().failures() == 3);
      await()
          .during(Duration.ofMillis(1500))
          .atMost(Duration.ofSeconds(3))
          .until(() -> manager.stats().failures() == 3);
      assertThat(manager.healthy().ok()).isTrue();
    } finally {
      manager.stop();
    }
  }

  static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
