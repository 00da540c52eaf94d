package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class GuardTest {
  private final Guard guard = new Guard();
  private final List<String> state = new ArrayList<>();

  @Test
  void bodiesOfManyThreadsNeverInterleave() throws Exception {
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      threads.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    for (int i = 0; i < 1000; i++) {
                      guard.run(
                          () -> {
                            state.add("in");
                            state.add("out");
                          });
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    int size = guard.get(state::size);
    assertThat(size).isEqualTo(8000);
    for (int i = 0; i < size; i += 2) {
      assertThat(state.subList(i, i + 2)).containsExactly("in", "out");
    }
  }

  @Test
  void awaitReturnsTheValueOnceASignalledChangeProvidesIt() throws Exception {
    CompletableFuture<Optional<String>> waiting =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return guard.await(
                    () -> state.isEmpty() ? Optional.empty() : Optional.of(state.get(0)),
                    Duration.ofSeconds(20));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    guard.run(
        () -> {
          state.add("ready");
          guard.signalAll();
        });
    assertThat(waiting.get(20, TimeUnit.SECONDS)).contains("ready");
  }

  @Test
  void awaitIsEmptyWhenTheTimeoutPassesFirst() throws Exception {
    assertThat(guard.await(Optional::empty, Duration.ofMillis(10))).isEmpty();
    assertThat(guard.awaitTrue(() -> false, Duration.ZERO)).isFalse();
    assertThat(guard.awaitTrue(() -> true, Duration.ZERO)).isTrue();
  }

  @Test
  void aPausedBodyLetsOthersInAndWakesOnTheirSignal() throws Exception {
    AtomicBoolean paused = new AtomicBoolean();
    CompletableFuture<String> body =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return guard.call(
                    () -> {
                      while (state.isEmpty()) {
                        paused.set(true);
                        guard.pause();
                      }
                      return state.get(0);
                    });
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(20)).untilTrue(paused);
    guard.run(
        () -> {
          state.add("go");
          guard.signalAll();
        });
    assertThat(body.get(20, TimeUnit.SECONDS)).isEqualTo("go");
  }
}
