package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link Schedulers} promises, run against the real one and against {@link
 * FakeSchedulers}, so that tests on the fake hold for the real scheduler too.
 */
abstract class SchedulerContract {
  static final Duration PERIOD = Duration.ofMillis(50);

  Scheduler scheduler;

  abstract Schedulers schedulers();

  /** Lets time pass until {@code runs} reaches {@code n}, failing if it never does. */
  abstract void awaitRuns(AtomicInteger runs, int n);

  /** Lets at least {@code d} pass and asserts that {@code runs} stayed at {@code n}. */
  abstract void assertStays(AtomicInteger runs, int n, Duration d);

  @BeforeEach
  void create() {
    scheduler = schedulers().create("contract");
  }

  @AfterEach
  void close() {
    scheduler.close();
  }

  @Test
  void afterRunsOnce() {
    AtomicInteger runs = new AtomicInteger();
    scheduler.after(PERIOD, runs::incrementAndGet);
    awaitRuns(runs, 1);
    assertStays(runs, 1, PERIOD.multipliedBy(3));
  }

  @Test
  void fixedRateRepeats() {
    AtomicInteger runs = new AtomicInteger();
    scheduler.atFixedRate(Duration.ZERO, PERIOD, runs::incrementAndGet);
    awaitRuns(runs, 3);
  }

  @Test
  void fixedDelayRepeats() {
    AtomicInteger runs = new AtomicInteger();
    scheduler.withFixedDelay(PERIOD, PERIOD, runs::incrementAndGet);
    awaitRuns(runs, 3);
  }

  @Test
  void cancelStopsLaterRuns() {
    AtomicInteger runs = new AtomicInteger();
    Scheduler.Task task = scheduler.atFixedRate(Duration.ZERO, PERIOD, runs::incrementAndGet);
    awaitRuns(runs, 1);
    task.cancel();
    int after = runs.get();
    assertStays(runs, after, PERIOD.multipliedBy(4));
  }

  @Test
  void aFailingTaskKeepsItsSchedule() {
    AtomicInteger runs = new AtomicInteger();
    scheduler.atFixedRate(
        Duration.ZERO,
        PERIOD,
        () -> {
          runs.incrementAndGet();
          throw new IllegalStateException("boom");
        });
    awaitRuns(runs, 3);
  }

  @Test
  void closeCancelsEverything() {
    AtomicInteger runs = new AtomicInteger();
    scheduler.atFixedRate(PERIOD.multipliedBy(2), PERIOD, runs::incrementAndGet);
    scheduler.after(PERIOD.multipliedBy(2), runs::incrementAndGet);
    scheduler.close();
    assertStays(runs, 0, PERIOD.multipliedBy(4));
  }

  static void check(AtomicInteger runs, int n) {
    assertThat(runs.get()).isEqualTo(n);
  }
}
