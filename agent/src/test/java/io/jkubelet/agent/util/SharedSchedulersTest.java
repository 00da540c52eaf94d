package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jkubelet.agent.testing.PlatformThreads;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SharedSchedulersTest extends SchedulerContract {
  private static final SharedSchedulers SHARED = SharedSchedulers.create("shared-test-timer", 1);

  @Override
  Schedulers schedulers() {
    return SHARED;
  }

  @Override
  void awaitRuns(AtomicInteger runs, int n) {
    await().atMost(Duration.ofSeconds(5)).until(() -> runs.get() >= n);
  }

  @Override
  void assertStays(AtomicInteger runs, int n, Duration d) {
    await().during(d).atMost(d.plusSeconds(2)).until(() -> runs.get() == n);
  }

  @Test
  void aSchedulerWhoseTaskBlocksDoesNotHoldUpAnother() throws InterruptedException {
    CountDownLatch release = new CountDownLatch(1);
    Scheduler blocked = SHARED.create("blocked");
    try {
      blocked.after(Duration.ZERO, () -> awaitQuietly(release));
      AtomicInteger runs = new AtomicInteger();
      scheduler.atFixedRate(Duration.ZERO, PERIOD, runs::incrementAndGet);
      awaitRuns(runs, 3);
    } finally {
      release.countDown();
      blocked.close();
    }
  }

  @Test
  void oneSchedulersTasksNeverOverlap() {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger runs = new AtomicInteger();
    Runnable task =
        () -> {
          most.accumulateAndGet(running.incrementAndGet(), Math::max);
          Thread.onSpinWait();
          running.decrementAndGet();
          runs.incrementAndGet();
        };
    for (int i = 0; i < 4; i++) {
      scheduler.atFixedRate(Duration.ZERO, Duration.ofMillis(5), task);
    }
    awaitRuns(runs, 40);
    assertThat(most.get()).isEqualTo(1);
  }

  @Test
  void manySchedulersCostNoPlatformThread() {
    List<Scheduler> many =
        java.util.stream.IntStream.range(0, 50).mapToObj(i -> SHARED.create("s" + i)).toList();
    AtomicInteger runs = new AtomicInteger();
    Set<String> ranOn = ConcurrentHashMap.newKeySet();
    many.forEach(
        s ->
            s.atFixedRate(
                Duration.ZERO,
                PERIOD,
                () -> {
                  runs.incrementAndGet();
                  if (!Thread.currentThread().isVirtual()) {
                    ranOn.add(Thread.currentThread().getName());
                  }
                }));
    awaitRuns(runs, 150);
    // Neither the timer nor any of the 50 schedulers' runners is a platform thread.
    List<String> ours =
        PlatformThreads.named(n -> n.startsWith("shared-test-timer") || n.matches("s[0-9]+"));
    many.forEach(Scheduler::close);
    assertThat(ours).isEmpty();
    assertThat(ranOn).isEmpty();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
