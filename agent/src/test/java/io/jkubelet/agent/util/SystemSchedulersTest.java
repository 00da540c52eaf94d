package io.jkubelet.agent.util;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

class SystemSchedulersTest extends SchedulerContract {
  @Override
  Schedulers schedulers() {
    return Schedulers.system();
  }

  @Override
  void awaitRuns(AtomicInteger runs, int n) {
    await().atMost(Duration.ofSeconds(5)).until(() -> runs.get() >= n);
  }

  @Override
  void assertStays(AtomicInteger runs, int n, Duration d) {
    await().during(d).atMost(d.plusSeconds(2)).until(() -> runs.get() == n);
  }
}
