package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FakeSchedulersTest extends SchedulerContract {
  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers fake = new FakeSchedulers(clock);

  @Override
  Schedulers schedulers() {
    return fake;
  }

  @Override
  void awaitRuns(AtomicInteger runs, int n) {
    for (int i = 0; i < 1000 && runs.get() < n; i++) {
      fake.advance(PERIOD.dividedBy(5));
    }
    assertThat(runs.get()).isGreaterThanOrEqualTo(n);
  }

  @Override
  void assertStays(AtomicInteger runs, int n, Duration d) {
    fake.advance(d);
    check(runs, n);
  }

  @Test
  void tasksOfAllSchedulersRunInDueOrderAtTheirDueTime() {
    Scheduler other = fake.create("other");
    List<String> order = new ArrayList<>();
    scheduler.after(Duration.ofSeconds(3), () -> order.add("a@" + clock.instant()));
    other.after(Duration.ofSeconds(1), () -> order.add("b@" + clock.instant()));
    fake.advance(Duration.ofSeconds(5));
    assertThat(order).containsExactly("b@2026-01-01T00:00:01Z", "a@2026-01-01T00:00:03Z");
    assertThat(clock.instant()).hasToString("2026-01-01T00:00:05Z");
  }

  @Test
  void fixedRateKeepsItsCadenceWhileFixedDelayCountsFromTheRun() {
    List<String> rate = new ArrayList<>();
    List<String> delay = new ArrayList<>();
    scheduler.atFixedRate(
        Duration.ofSeconds(1),
        Duration.ofSeconds(2),
        () -> {
          rate.add(clock.instant().toString());
          clock.step(Duration.ofMillis(500)); // the task takes time
        });
    fake.create("d")
        .withFixedDelay(
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            () -> {
              delay.add(clock.instant().toString());
              clock.step(Duration.ofMillis(500));
            });
    fake.advance(Duration.ofSeconds(6));
    assertThat(rate)
        .containsExactly("2026-01-01T00:00:01Z", "2026-01-01T00:00:03Z", "2026-01-01T00:00:05Z");
    assertThat(delay).containsExactly("2026-01-01T00:00:01.500Z", "2026-01-01T00:00:04Z");
  }
}
