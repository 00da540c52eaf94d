package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OwnedSchedulerTest {
  private final FakeSchedulers schedulers = new FakeSchedulers(new FakeClock());
  private final AtomicInteger runs = new AtomicInteger();
  private final OwnedScheduler owned =
      new OwnedScheduler(
          schedulers,
          "checks",
          "checks not started",
          s -> s.atFixedRate(Duration.ZERO, Duration.ofSeconds(1), runs::incrementAndGet));

  @Test
  void beforeTheStartNothingRunsAndItIsNotHealthy() {
    assertThat(owned.healthy()).isEqualTo(Lifecycle.Health.failing("checks not started"));
    assertThat(owned.current()).isNull();
    schedulers.advance(Duration.ofSeconds(5));
    assertThat(runs).hasValue(0);
    assertThat(schedulers.created()).isEmpty();
  }

  @Test
  void theStartMakesOneNamedSchedulerAndItsTasksRunUntilTheStop() {
    owned.start();
    owned.start(); // a second start changes nothing
    assertThat(schedulers.created()).containsExactly("checks");
    assertThat(owned.healthy()).isEqualTo(Lifecycle.Health.OK);
    assertThat(owned.current()).isNotNull();

    schedulers.advance(Duration.ofSeconds(2));
    assertThat(runs).hasValue(3);

    owned.stop();
    owned.stop(); // idempotent
    assertThat(owned.healthy().ok()).isFalse();
    assertThat(owned.current()).isNull();
    schedulers.advance(Duration.ofSeconds(5));
    assertThat(runs).as("no run after the stop").hasValue(3);
    assertThat(schedulers.pending()).isZero();
  }
}
