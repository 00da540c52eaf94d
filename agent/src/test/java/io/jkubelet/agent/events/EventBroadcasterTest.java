package io.jkubelet.agent.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fabric8.kubernetes.api.model.Event;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The broadcaster: per-watcher queues, no blocking, counted drops, explicit lifecycle. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EventBroadcasterTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private final FakeClock clock = new FakeClock();
  private final BroadcastRecorder maker = TestEvents.recorder(clock);
  private EventBroadcaster broadcaster;

  @AfterEach
  void stop() {
    if (broadcaster != null) {
      broadcaster.stop();
    }
  }

  private Event event(String reason) {
    return TestEvents.podEvent(
        maker, TestEvents.pod("ns", "p", "u"), EventType.Normal, reason, "m");
  }

  @Test
  void aStuckWatcherNeitherBlocksTheProducerNorTheOthersAndItsDropsAreCounted() {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<Event> fast = new CopyOnWriteArrayList<>();
    broadcaster =
        new EventBroadcaster(10)
            .addWatcher(
                "stuck",
                e -> {
                  entered.countDown();
                  try {
                    release.await();
                  } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                  }
                })
            .addWatcher("fast", fast::add);
    broadcaster.start();

    broadcaster.action(event("First"));
    await().atMost(WAIT).until(() -> entered.getCount() == 0);
    assertTimeoutPreemptively(
        Duration.ofSeconds(5),
        () -> {
          for (int i = 0; i < 50; i++) {
            broadcaster.action(event(i % 2 == 0 ? "Pulling" : "Pulled"));
          }
        });

    // The stuck watcher holds one event and queues 9 (the last place is kept for Warnings); the
    // other 41 are dropped and counted.
    assertThat(broadcaster.queued("stuck")).isEqualTo(9);
    Map<String, Long> stuckDrops = broadcaster.dropped().get("stuck");
    assertThat(stuckDrops.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(41);
    assertThat(stuckDrops).containsOnlyKeys("Pulling", "Pulled");
    // The fast watcher got everything it did not drop itself.
    long fastDrops =
        broadcaster.dropped().get("fast").values().stream().mapToLong(Long::longValue).sum();
    await().atMost(WAIT).until(() -> fast.size() + fastDrops == 51);
    release.countDown();
    await().atMost(WAIT).until(() -> broadcaster.queued("stuck") == 0);
  }

  @Test
  void warningsGetThroughAQueueFullOfNormalEvents() {
    CountDownLatch release = new CountDownLatch(1);
    List<String> seen = new CopyOnWriteArrayList<>();
    broadcaster =
        new EventBroadcaster(10)
            .addWatcher(
                "slow",
                e -> {
                  try {
                    release.await();
                  } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                  }
                  seen.add(e.getType() + " " + e.getReason());
                });
    broadcaster.start();
    broadcaster.action(event("First"));
    await().atMost(WAIT).until(() -> broadcaster.queued("slow") == 0);
    for (int i = 0; i < 30; i++) {
      broadcaster.action(event("Pulled"));
    }
    for (String reason : List.of("BackOff", "OOMKilled", "Failed")) {
      Event w = event(reason);
      w.setType("Warning");
      broadcaster.action(w);
    }
    release.countDown();
    await().atMost(WAIT).until(() -> seen.size() == 11);
    assertThat(seen).contains("Warning BackOff", "Warning OOMKilled", "Warning Failed");
    assertThat(broadcaster.dropped().get("slow")).containsOnlyKeys("Pulled");
  }

  @Test
  void eachWatcherGetsItsOwnCopy() {
    List<Event> a = new CopyOnWriteArrayList<>();
    List<Event> b = new CopyOnWriteArrayList<>();
    broadcaster =
        EventBroadcaster.create()
            .addWatcher(
                "a",
                e -> {
                  e.setMessage("changed by a");
                  a.add(e);
                })
            .addWatcher("b", b::add);
    broadcaster.start();
    broadcaster.action(event("X"));
    await().atMost(WAIT).until(() -> a.size() == 1 && b.size() == 1);
    assertThat(b.get(0).getMessage()).isEqualTo("m");
  }

  @Test
  void forgettingAPodReachesTheCorrelatorsOfTheWatchersThatRememberIt() {
    EventStore store = EventStore.create(clock);
    broadcaster = EventBroadcaster.create().addWatcher("store", store).addWatcher("log", e -> {});
    var recorder = new BroadcastRecorder(clock, "node1", broadcaster);
    broadcaster.start();
    recorder.event(Refs.pod(TestEvents.pod("ns", "p", "u")), EventType.Normal, "Pulled", "present");
    await().atMost(WAIT).until(() -> store.size() == 1);
    assertThat(store.correlatorCaches())
        .extracting(EventCorrelator.CacheSize::entries)
        .containsOnly(1);

    recorder.forget("u");

    assertThat(store.correlatorCaches())
        .extracting(EventCorrelator.CacheSize::entries)
        .containsOnly(0);
    assertThat(store.size()).as("the stored event itself stays").isEqualTo(1);
  }

  @Test
  void aThrowingWatcherKeepsReceiving() {
    List<String> seen = new CopyOnWriteArrayList<>();
    broadcaster =
        EventBroadcaster.create()
            .addWatcher(
                "bad",
                e -> {
                  seen.add(e.getReason());
                  throw new IllegalStateException("boom");
                });
    broadcaster.start();
    broadcaster.action(event("One"));
    broadcaster.action(event("Two"));
    await().atMost(WAIT).until(() -> seen.size() == 2);
    assertThat(broadcaster.healthy().ok()).isTrue();
  }

  @Test
  void lifecycleIsExplicit() {
    CountDownLatch entered = new CountDownLatch(1);
    broadcaster =
        EventBroadcaster.create()
            .addWatcher(
                "blocking",
                e -> {
                  entered.countDown();
                  try {
                    new CountDownLatch(1).await();
                  } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                  }
                });
    assertThat(broadcaster.healthy().ok()).isFalse();
    // Queued before start, delivered after.
    broadcaster.action(event("Early"));
    broadcaster.start();
    assertThat(broadcaster.healthy().ok()).isTrue();
    assertThatThrownBy(() -> broadcaster.addWatcher("late", e -> {}))
        .isInstanceOf(IllegalStateException.class);
    await().atMost(WAIT).until(() -> entered.getCount() == 0);
    // Stop interrupts the busy watcher.
    assertTimeoutPreemptively(Duration.ofSeconds(5), () -> broadcaster.stop());
    assertThat(broadcaster.healthy().ok()).isFalse();
  }

  @Test
  void everyEventHandedToTheBroadcasterIsCountedByTypeAndReason() {
    broadcaster = new EventBroadcaster(2);
    broadcaster.addWatcher("slow", e -> {}); // not started: its queue fills and drops
    broadcaster.action(event("Pulled"));
    broadcaster.action(event("Pulled"));
    broadcaster.action(event("Started"));

    assertThat(broadcaster.recorded())
        .isEqualTo(Map.of("Normal", Map.of("Pulled", 2L, "Started", 1L)));
    assertThat(broadcaster.dropped().get("slow")).isNotEmpty(); // dropped, and still recorded
  }
}
