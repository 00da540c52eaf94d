package io.jkubelet.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class CallsInFlightTest {
  private static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");
  private final FakeClock clock = new FakeClock(T0);
  private final CountDownLatch release = new CountDownLatch(1);
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

  /** A runtime whose stops wait until released, and whose removes fail. */
  private final Runtime engine =
      new ForwardingRuntime(new FakeRuntime(clock)) {
        @Override
        public void stopContainer(String containerId, Duration grace) {
          try {
            release.await(20, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }

        @Override
        public void removeContainer(String containerId) {
          throw new RuntimeError(RuntimeError.Kind.NOT_FOUND, "no such container");
        }
      };

  private final CallsInFlight calls = new CallsInFlight(engine, clock);

  @AfterEach
  void close() {
    release.countDown();
    threads.shutdownNow();
  }

  @Test
  void aCallThatHasNotReturnedIsListedWithItsTargetAndStartUntilItReturns() throws Exception {
    Future<?> stop = threads.submit(() -> calls.stopContainer("c1", Duration.ofSeconds(30)));
    await().until(() -> calls.size() == 1);
    clock.step(Duration.ofSeconds(90));

    List<CallsInFlight.Call> inFlight = calls.about(List.of("c1", "c2"));
    assertThat(inFlight).containsExactly(new CallsInFlight.Call("StopContainer", "c1", T0));
    assertThat(inFlight.get(0).age(clock.instant())).isEqualTo(Duration.ofSeconds(90));
    assertThat(calls.about(List.of("c2"))).as("another container's").isEmpty();

    release.countDown();
    stop.get(10, TimeUnit.SECONDS);
    assertThat(calls.about(List.of("c1"))).isEmpty();
  }

  @Test
  void aFailedCallIsNoLongerInFlight() {
    assertThatThrownBy(() -> calls.removeContainer("c1")).isInstanceOf(RuntimeError.class);
    assertThat(calls.size()).isZero();
  }
}
