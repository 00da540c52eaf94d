package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LifecycleListTest {
  private final List<String> calls = new CopyOnWriteArrayList<>();

  private Lifecycle part(String name) {
    return Lifecycle.of(name, () -> calls.add("start " + name), () -> calls.add("stop " + name));
  }

  @Test
  void startsInOrderAndStopsInReverse() {
    LifecycleList list = new LifecycleList(List.of(part("a"), part("b"), part("c")));

    assertThat(list.start()).isTrue();
    list.stop();

    assertThat(calls)
        .containsExactly("start a", "start b", "start c", "stop c", "stop b", "stop a");
  }

  @Test
  void aFailedStartStopsWhatStartedAndIsThrown() {
    Lifecycle failing =
        Lifecycle.of(
            "b",
            () -> {
              throw new IllegalStateException("no engine");
            },
            () -> calls.add("stop b"));
    LifecycleList list = new LifecycleList(List.of(part("a"), failing, part("c")));

    assertThatThrownBy(list::start).hasMessage("no engine");

    assertThat(calls).containsExactly("start a", "stop a");
  }

  /** SIGTERM while a part's start waits (the API source's first list): no part starts after it. */
  @Test
  void aStopDuringTheStartStopsWhatStartedAndStartsNothingMore() throws Exception {
    CountDownLatch waiting = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Lifecycle slow =
        Lifecycle.of(
            "slow",
            () -> {
              calls.add("start slow");
              waiting.countDown();
              await(release);
            },
            () -> calls.add("stop slow"));
    LifecycleList list = new LifecycleList(List.of(part("a"), slow, part("c")));

    CompletableFuture<Boolean> start = CompletableFuture.supplyAsync(list::start);
    assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
    list.stop();
    release.countDown();

    assertThat(start.get(10, TimeUnit.SECONDS)).isFalse();
    assertThat(calls).containsExactly("start a", "start slow", "stop a", "stop slow");
  }

  @Test
  void aStopBeforeTheStartStartsNothing() {
    LifecycleList list = new LifecycleList(List.of(part("a")));

    list.stop();

    assertThat(list.start()).isFalse();
    assertThat(calls).isEmpty();
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
