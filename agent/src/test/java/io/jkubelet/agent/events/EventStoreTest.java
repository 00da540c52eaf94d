package io.jkubelet.agent.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The in-memory store of standalone mode: filtering, order, bounds and correlator answers. */
class EventStoreTest {
  private final FakeClock clock = new FakeClock();
  private final BroadcastRecorder maker = TestEvents.recorder(clock);
  private final Pod web = TestEvents.pod("ns1", "web", "uid-web");
  private final Pod db = TestEvents.pod("ns2", "db", "uid-db");
  private final Pod web2 = TestEvents.pod("ns2", "web", "uid-web2");

  private Event ev(Pod p, String reason) {
    return TestEvents.podEvent(maker, p, EventType.Normal, reason, reason + " msg");
  }

  private static final Optional<String> ANY = Optional.empty();

  @Test
  void filtersByNamespacePodNameAndUidNewestLast() {
    EventStore store = EventStore.create(clock);
    store.accept(ev(web, "A"));
    clock.step(Duration.ofSeconds(1));
    store.accept(ev(db, "B"));
    clock.step(Duration.ofSeconds(1));
    store.accept(ev(web2, "C"));
    clock.step(Duration.ofSeconds(1));
    store.accept(
        maker.make(Occurrence.now(Refs.container(web, "c", false), EventType.Warning, "D", "d")));
    store.accept(maker.make(Occurrence.now(Refs.node("node1"), EventType.Normal, "E", "e")));

    assertThat(store.list(ANY, ANY, ANY))
        .extracting(Event::getReason)
        .containsExactly("A", "B", "C", "D", "E");
    assertThat(store.list(Optional.of("ns2"), ANY, ANY))
        .extracting(Event::getReason)
        .containsExactly("B", "C");
    assertThat(store.list(ANY, Optional.of("web"), ANY))
        .extracting(Event::getReason)
        .containsExactly("A", "C", "D");
    assertThat(store.list(Optional.of("ns1"), Optional.of("web"), ANY))
        .extracting(Event::getReason)
        .containsExactly("A", "D");
    assertThat(store.list(ANY, ANY, Optional.of("uid-web2")))
        .extracting(Event::getReason)
        .containsExactly("C");
    assertThat(store.list(Optional.of("default"), ANY, ANY))
        .extracting(Event::getReason)
        .containsExactly("E");
  }

  @Test
  void sortsByLastTimestampNotArrival() {
    EventStore store = EventStore.create(clock);
    clock.step(Duration.ofMinutes(1));
    store.accept(ev(web, "Later"));
    store.accept(
        maker.make(
            new Occurrence(
                Refs.pod(web),
                clock.instant().minusSeconds(30),
                Map.of(),
                EventType.Normal,
                "Earlier",
                "x")));
    assertThat(store.list(ANY, ANY, ANY))
        .extracting(Event::getReason)
        .containsExactly("Earlier", "Later");
  }

  @Test
  void keepsTheNewestUpToItsCapacity() {
    EventStore store = new EventStore(new ScriptedCorrelator(), 3);
    for (int i = 0; i < 5; i++) {
      store.accept(ev(web, "R" + i));
    }
    assertThat(store.list(ANY, ANY, ANY))
        .extracting(Event::getReason)
        .containsExactly("R2", "R3", "R4");
    assertThat(store.size()).isEqualTo(3);
    assertThat(store.capacity()).isEqualTo(3);
    assertThat(store.evicted()).isEqualTo(2);
  }

  @Test
  void anUpdateAppliesThePatchToTheStoredEventAndADropIsCounted() {
    ScriptedCorrelator correlator = new ScriptedCorrelator();
    EventStore store = new EventStore(correlator, 10);
    Event first = ev(web, "BackOff");
    store.accept(first);

    clock.step(Duration.ofSeconds(40));
    correlator.update(2, "2026-01-01T00:00:40Z");
    // The correlator names the update after the stored event, as upstream does.
    Event again = ev(web, "BackOff");
    again.getMetadata().setName(first.getMetadata().getName());
    store.accept(again);

    correlator.answer(e -> new Correlation.Drop(e, CorrelatorStats.Cause.DROPPED_SPAM_FILTER));
    store.accept(ev(web, "BackOff"));

    assertThat(store.list(ANY, ANY, ANY))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getCount()).isEqualTo(2);
              assertThat(e.getFirstTimestamp()).isEqualTo("2026-01-01T00:00:00Z");
              assertThat(e.getLastTimestamp()).isEqualTo("2026-01-01T00:00:40Z");
            });
    assertThat(store.dropped()).isEqualTo(1);
    assertThat(correlator.written()).hasSize(2);
  }

  @Test
  void listReturnsCopies() {
    EventStore store = EventStore.create(clock);
    store.accept(ev(web, "A"));
    store.list(ANY, ANY, ANY).get(0).setMessage("changed");
    assertThat(store.list(ANY, ANY, ANY).get(0).getMessage()).isEqualTo("A msg");
  }
}
