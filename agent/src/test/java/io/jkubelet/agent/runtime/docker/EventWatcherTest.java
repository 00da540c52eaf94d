package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Event;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.RecordingSleeper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link EventWatcher}'s reconnects, on a scripted event source and a recording sleeper. */
@Timeout(30)
class EventWatcherTest {

  /** Each open runs the next step on the callback; after the last, the stream stays open. */
  private static final class ScriptedSource implements EventWatcher.EventSource {
    private final List<Consumer<ResultCallback<Event>>> steps;
    final AtomicInteger opens = new AtomicInteger();
    final AtomicReference<Thread> thread = new AtomicReference<>();

    ScriptedSource(List<Consumer<ResultCallback<Event>>> steps) {
      this.steps = new ArrayList<>(steps);
    }

    @Override
    public void open(ResultCallback<Event> callback) {
      thread.set(Thread.currentThread());
      int n = opens.getAndIncrement();
      if (n < steps.size()) {
        steps.get(n).accept(callback);
      }
    }
  }

  private static void refused(ResultCallback<Event> c) {
    c.onError(new IOException("Connection refused"));
  }

  private static void connectedOneEventThenBroke(ResultCallback<Event> c) {
    c.onStart(() -> {});
    c.onNext(new Event("start", "c1", "busybox", 0L));
    c.onError(new IOException("engine restarted"));
  }

  @Test
  void reconnectsAfterADoublingPauseThatStartsOverOnceAStreamOpened() throws Exception {
    ScriptedSource source =
        new ScriptedSource(
            List.of(
                EventWatcherTest::refused,
                EventWatcherTest::refused,
                EventWatcherTest::connectedOneEventThenBroke,
                EventWatcherTest::refused));
    RecordingSleeper sleeper = new RecordingSleeper(new FakeClock());
    AtomicInteger changes = new AtomicInteger();

    AutoCloseable watch = new EventWatcher(source, sleeper).watch(changes::incrementAndGet);
    await().atMost(Duration.ofSeconds(10)).until(() -> source.opens.get() == 5);
    watch.close();
    source.thread.get().join(Duration.ofSeconds(10));

    assertThat(source.thread.get().isAlive()).isFalse();
    assertThat(sleeper.sleeps())
        .containsExactly(
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(1),
            Duration.ofSeconds(2));
    assertThat(changes).hasValue(1);
    assertThat(source.opens).hasValue(5);
  }

  @Test
  void theReconnectPauseDoesNotGrowBeyondItsMaximum() {
    Duration pause = null;
    for (int i = 0; i < 10; i++) {
      pause = EventWatcher.RECONNECT.next(pause);
    }
    assertThat(pause).isEqualTo(Duration.ofSeconds(30));
  }
}
