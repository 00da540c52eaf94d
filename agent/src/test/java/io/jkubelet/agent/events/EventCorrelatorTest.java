package io.jkubelet.agent.events;

import static io.jkubelet.agent.events.CorrelatorStats.Cause.AGGREGATED;
import static io.jkubelet.agent.events.CorrelatorStats.Cause.DEDUPLICATED;
import static io.jkubelet.agent.events.CorrelatorStats.Cause.DROPPED_SPAM_FILTER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

class EventCorrelatorTest {
  private final FakeClock clock = new FakeClock();
  private final EventCorrelator correlator =
      new EventCorrelator(clock, CorrelatorOptions.defaults());

  /** An event as the recorder makes it, stamped with the fake clock's now. */
  private Event event(String pod, String container, String type, String reason, String message) {
    ObjectReference ref =
        new ObjectReferenceBuilder()
            .withApiVersion("v1")
            .withKind("Pod")
            .withNamespace("ns")
            .withName(pod)
            .withUid("uid-" + pod)
            .withFieldPath(container == null ? null : "spec.containers{" + container + "}")
            .build();
    String now = clock.instant().toString();
    return new EventBuilder()
        .withNewMetadata()
        .withName(pod + "." + String.format("%016x", ThreadLocalRandom.current().nextLong()))
        .withNamespace("ns")
        .endMetadata()
        .withInvolvedObject(ref)
        .withType(type)
        .withReason(reason)
        .withMessage(message)
        .withNewSource()
        .withComponent("kubelet")
        .withHost("node1")
        .endSource()
        .withFirstTimestamp(now)
        .withLastTimestamp(now)
        .withCount(1)
        .withReportingComponent("kubelet")
        .withReportingInstance("node1")
        .build();
  }

  private Event normal(String pod, String reason, String message) {
    return event(pod, "c", "Normal", reason, message);
  }

  /** A progress report of the event whose message is {@code of}. */
  private Event progress(String pod, String of, String message) {
    Event e = normal(pod, "Pulling", message);
    e.getMetadata().setAnnotations(java.util.Map.of(EventCorrelator.PROGRESS_OF, of));
    return e;
  }

  @Test
  void progressPatchesTheEventItReportsOnWithoutAggregationOrSpamFilter() {
    String pulling = "Pulling image \"big:1\"";
    Correlation first = correlator.correlate(normal("p", "Pulling", pulling));
    assertThat(first).isInstanceOf(Correlation.Create.class);
    String name = first.event().getMetadata().getName();
    correlator.updateState(first.event());

    // 40 reports, each with its own message: more than the aggregator's 10 distinct messages and
    // the spam filter's burst of 25.
    for (int i = 1; i <= 40; i++) {
      clock.step(Duration.ofSeconds(10));
      Event sent = progress("p", pulling, pulling + ": " + i + "MB");
      Correlation c = correlator.correlate(sent);
      assertThat(c).isInstanceOf(Correlation.Update.class);
      // The server answers a patch with the stored object, which has no such annotation.
      Event answer =
          new EventBuilder(c.event()).editMetadata().withAnnotations(null).endMetadata().build();
      correlator.updateState(sent, answer);
      assertThat(c.event().getMetadata().getName()).isEqualTo(name);
      assertThat(c.event().getCount()).isEqualTo(i + 1);
      assertThat(((Correlation.Update) c).patch())
          .contains("\"count\":" + (i + 1))
          .contains("\"message\":\"Pulling image \\\"big:1\\\": " + i + "MB\"");
    }
    assertThat(correlator.stats().byCause()).doesNotContainKeys(AGGREGATED, DROPPED_SPAM_FILTER);
    assertThat(correlator.caches())
        .filteredOn(cache -> cache.name().equals("logger"))
        .singleElement()
        .as("the reports are filed under the Pulling event's key, not one each")
        .satisfies(cache -> assertThat(cache.entries()).isEqualTo(1));

    // The next pull of the image patches the same event back to its own words.
    Correlation again = correlator.correlate(normal("p", "Pulling", pulling));
    assertThat(again).isInstanceOf(Correlation.Update.class);
    assertThat(again.event().getMetadata().getName()).isEqualTo(name);
    assertThat(again.event().getMessage()).isEqualTo(pulling);
  }

  @Test
  void progressOfAnEventNeverSeenCreatesOne() {
    Correlation c =
        correlator.correlate(progress("p", "Pulling image \"x\"", "Pulling image \"x\": 1MB"));
    assertThat(c).isInstanceOf(Correlation.Create.class);
    assertThat(c.event().getMessage()).isEqualTo("Pulling image \"x\": 1MB");
  }

  @Test
  void tenthDistinctMessageWithinTheWindowBecomesTheAggregate() {
    for (int i = 1; i <= 9; i++) {
      Correlation c = correlator.correlate(normal("p", "Created", "Created container c" + i));
      assertThat(c).isInstanceOf(Correlation.Create.class);
      assertThat(c.event().getMessage()).isEqualTo("Created container c" + i);
      clock.step(Duration.ofSeconds(60)); // 9 gaps of 60 s: 540 s in all, within 600 s
    }
    Correlation tenth = correlator.correlate(normal("p", "Created", "Created container c10"));

    assertThat(tenth).isInstanceOf(Correlation.Create.class);
    Event aggregate = tenth.event();
    assertThat(aggregate.getMessage())
        .isEqualTo("(combined from similar events): Created container c10");
    assertThat(aggregate.getMetadata().getName()).matches("p\\.[0-9a-f]{16}");
    assertThat(aggregate.getMetadata().getNamespace()).isEqualTo("ns");
    assertThat(aggregate.getCount()).isEqualTo(1);
    assertThat(aggregate.getReason()).isEqualTo("Created");
    assertThat(aggregate.getFirstTimestamp()).isEqualTo(clock.instant().toString());
    assertThat(correlator.stats().cause(AGGREGATED)).isEqualTo(1);
    assertThat(correlator.stats().reason("Created", AGGREGATED)).isEqualTo(1);

    // Later distinct messages keep updating the same aggregate object.
    clock.step(Duration.ofSeconds(5));
    Correlation eleventh = correlator.correlate(normal("p", "Created", "Created container c11"));
    assertThat(eleventh).isInstanceOf(Correlation.Update.class);
    assertThat(eleventh.event().getMetadata().getName())
        .isEqualTo(aggregate.getMetadata().getName());
    assertThat(eleventh.event().getCount()).isEqualTo(2);
    assertThat(eleventh.event().getFirstTimestamp()).isEqualTo(aggregate.getFirstTimestamp());
    assertThat(((Correlation.Update) eleventh).patch())
        .isEqualTo(
            "{\"count\":2,\"lastTimestamp\":\""
                + clock.instant()
                + "\",\"message\":\"(combined from similar events): Created container c11\"}");
    assertThat(correlator.stats().byCause())
        .containsEntry(AGGREGATED, 2L)
        .containsEntry(DEDUPLICATED, 1L);
  }

  @Test
  void aGapLongerThanTheWindowStartsTheCountOver() {
    for (int i = 1; i <= 9; i++) {
      correlator.correlate(normal("p", "Created", "Created container c" + i));
    }
    clock.step(Duration.ofSeconds(601));
    Correlation tenth = correlator.correlate(normal("p", "Created", "Created container c10"));

    assertThat(tenth).isInstanceOf(Correlation.Create.class);
    assertThat(tenth.event().getMessage()).isEqualTo("Created container c10");
    assertThat(correlator.stats().cause(AGGREGATED)).isZero();
  }

  @Test
  void exactlyTheWindowStillCounts() {
    for (int i = 1; i <= 9; i++) {
      correlator.correlate(normal("p", "Created", "Created container c" + i));
    }
    clock.step(Duration.ofSeconds(600));
    assertThat(correlator.correlate(normal("p", "Created", "x")).event().getMessage())
        .startsWith(EventCorrelator.AGGREGATE_PREFIX);
  }

  @Test
  void repeatsOfOneMessageAndOtherReasonsDoNotAggregate() {
    for (int i = 0; i < 20; i++) {
      correlator.correlate(normal("p", "Pulled", "already present"));
    }
    for (int i = 1; i <= 9; i++) {
      correlator.correlate(normal("p", "Created", "Created container c" + i));
      correlator.correlate(event("p", "c", "Warning", "Created", "w" + i));
      correlator.correlate(normal("q", "Created", "Created container c" + i));
    }
    assertThat(correlator.stats().cause(AGGREGATED)).isZero();
  }

  @Test
  void anIdenticalEventPatchesTheFirstObject() {
    Event first = normal("p", "Pulled", "Container image \"busybox\" already present on machine");
    Correlation c1 = correlator.correlate(first);
    assertThat(c1).isInstanceOf(Correlation.Create.class);
    assertThat(c1.event().getMetadata().getName()).isEqualTo(first.getMetadata().getName());
    String firstTimestamp = c1.event().getFirstTimestamp();

    for (int n = 2; n <= 4; n++) {
      clock.step(Duration.ofSeconds(10));
      Correlation c =
          correlator.correlate(
              normal("p", "Pulled", "Container image \"busybox\" already present on machine"));
      assertThat(c).isInstanceOf(Correlation.Update.class);
      Correlation.Update u = (Correlation.Update) c;
      assertThat(u.event().getMetadata().getName()).isEqualTo(first.getMetadata().getName());
      assertThat(u.event().getCount()).isEqualTo(n);
      assertThat(u.event().getFirstTimestamp()).isEqualTo(firstTimestamp);
      assertThat(u.event().getLastTimestamp()).isEqualTo(clock.instant().toString());
      assertThat(u.patch())
          .isEqualTo(
              "{\"count\":"
                  + n
                  + ",\"lastTimestamp\":\""
                  + clock.instant()
                  + "\",\"message\":\"Container image \\\"busybox\\\" already present on"
                  + " machine\"}");
    }
    assertThat(correlator.stats().byCause()).containsOnlyKeys(DEDUPLICATED);
    assertThat(correlator.stats().cause(DEDUPLICATED)).isEqualTo(3);
    assertThat(correlator.stats().reason("Pulled", DEDUPLICATED)).isEqualTo(3);
  }

  @Test
  void fieldPathMessageTypeAndObjectAreAllPartOfTheKey() {
    correlator.correlate(event("p", "a", "Normal", "Started", "m"));
    assertThat(correlator.correlate(event("p", "b", "Normal", "Started", "m")))
        .isInstanceOf(Correlation.Create.class);
    assertThat(correlator.correlate(event("p", "a", "Normal", "Started", "m2")))
        .isInstanceOf(Correlation.Create.class);
    assertThat(correlator.correlate(event("p", "a", "Warning", "Started", "m")))
        .isInstanceOf(Correlation.Create.class);
    assertThat(correlator.correlate(event("q", "a", "Normal", "Started", "m")))
        .isInstanceOf(Correlation.Create.class);
    assertThat(correlator.correlate(event("p", "a", "Normal", "Started", "m")))
        .isInstanceOf(Correlation.Update.class);
  }

  @Test
  void updateStateRecordsWhatTheServerHolds() {
    Correlation c1 = correlator.correlate(normal("p", "Killing", "Stopping container c"));
    Event written = new EventBuilder(c1.event()).build();
    written.getMetadata().setName("p.server-name");
    written.getMetadata().setResourceVersion("42");
    written.setCount(7);
    correlator.updateState(written);

    Correlation c2 = correlator.correlate(normal("p", "Killing", "Stopping container c"));
    assertThat(c2).isInstanceOf(Correlation.Update.class);
    assertThat(c2.event().getMetadata().getName()).isEqualTo("p.server-name");
    assertThat(c2.event().getMetadata().getResourceVersion()).isEqualTo("42");
    assertThat(c2.event().getCount()).isEqualTo(8);
  }

  @Test
  void updateStateOfAnAggregateFilesItUnderTheAggregate() {
    Event aggregate = null;
    for (int i = 1; i <= 10; i++) {
      aggregate = correlator.correlate(normal("p", "Created", "m" + i)).event();
    }
    Event written = new EventBuilder(aggregate).build();
    written.getMetadata().setName("p.agg-on-server");
    written.setCount(3);
    correlator.updateState(written);

    Correlation next = correlator.correlate(normal("p", "Created", "m11"));
    assertThat(next.event().getMetadata().getName()).isEqualTo("p.agg-on-server");
    assertThat(next.event().getCount()).isEqualTo(4);
  }

  @Test
  void theLeastRecentlyUsedEntryIsEvicted() {
    var options = new CorrelatorOptions(2, 10, Duration.ofSeconds(600), 1.0 / 300, 25, true);
    var correlator = new EventCorrelator(clock, options);
    correlator.correlate(normal("a", "Pulled", "m"));
    correlator.correlate(normal("b", "Pulled", "m"));
    // Touch a, so b is the eldest when c arrives.
    assertThat(correlator.correlate(normal("a", "Pulled", "m")))
        .isInstanceOf(Correlation.Update.class);
    correlator.correlate(normal("c", "Pulled", "m"));

    assertThat(correlator.correlate(normal("a", "Pulled", "m")))
        .isInstanceOf(Correlation.Update.class);
    Correlation b = correlator.correlate(normal("b", "Pulled", "m"));
    assertThat(b).isInstanceOf(Correlation.Create.class);
    assertThat(b.event().getCount()).isEqualTo(1);
  }

  @Test
  void itsThreeCachesShowTheirSizeBoundAndEvictions() {
    var options = new CorrelatorOptions(2, 10, Duration.ofSeconds(600), 1.0 / 300, 25, true);
    var correlator = new EventCorrelator(clock, options);
    assertThat(correlator.caches())
        .containsExactly(
            new EventCorrelator.CacheSize("aggregator", 0, 2, 0),
            new EventCorrelator.CacheSize("spam_filter", 0, 2, 0),
            new EventCorrelator.CacheSize("logger", 0, 2, 0));
    for (String object : List.of("a", "b", "c", "d", "e")) {
      correlator.correlate(normal(object, "Pulled", "m"));
    }
    // Five objects through caches of two: each kept the two most recent and evicted three.
    assertThat(correlator.caches())
        .extracting(EventCorrelator.CacheSize::entries, EventCorrelator.CacheSize::evictions)
        .containsOnly(org.assertj.core.groups.Tuple.tuple(2, 3L));
  }

  @Test
  void forgettingAnObjectEmptiesItsEntriesAndKeepsTheOthers() {
    String pulled = "Container image \"busybox\" already present on machine";
    correlator.correlate(normal("gone", "Pulled", pulled));
    correlator.correlate(event("gone", null, "Normal", "Scheduled", "assigned"));
    correlator.correlate(normal("kept", "Pulled", pulled));
    // Aggregator and logger: a key per object and reason; spam filter: a key per object.
    assertThat(correlator.caches())
        .extracting(EventCorrelator.CacheSize::entries)
        .containsExactly(3, 2, 3);

    correlator.forget("uid-gone");

    assertThat(correlator.caches())
        .extracting(EventCorrelator.CacheSize::name, EventCorrelator.CacheSize::entries)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("aggregator", 1),
            org.assertj.core.groups.Tuple.tuple("spam_filter", 1),
            org.assertj.core.groups.Tuple.tuple("logger", 1));
    // The object kept still patches its event; the forgotten one starts afresh.
    assertThat(correlator.correlate(normal("kept", "Pulled", pulled)))
        .isInstanceOf(Correlation.Update.class);
    assertThat(correlator.correlate(normal("gone", "Pulled", pulled)))
        .isInstanceOf(Correlation.Create.class);
  }

  @Test
  void anEvictedSpamRecordStartsWithAFullBucket() {
    var options = new CorrelatorOptions(1, 10, Duration.ofSeconds(600), 1.0 / 300, 2, false);
    var correlator = new EventCorrelator(clock, options);
    correlator.correlate(normal("a", "Pulled", "m"));
    correlator.correlate(normal("a", "Pulled", "m"));
    assertThat(correlator.correlate(normal("a", "Pulled", "m")))
        .isInstanceOf(Correlation.Drop.class);
    correlator.correlate(normal("b", "Pulled", "m")); // evicts a's bucket
    assertThat(correlator.correlate(normal("a", "Pulled", "m")))
        .isNotInstanceOf(Correlation.Drop.class);
  }

  @Test
  void burstOf25ThenDropsThenOneTokenPer300Seconds() {
    var correlator = new EventCorrelator(clock, CorrelatorOptions.upstream());
    for (int i = 0; i < 25; i++) {
      assertThat(correlator.correlate(normal("p", "Pulled", "m")))
          .isNotInstanceOf(Correlation.Drop.class);
    }
    Correlation dropped = correlator.correlate(normal("p", "Pulled", "m"));
    assertThat(dropped).isInstanceOf(Correlation.Drop.class);
    assertThat(((Correlation.Drop) dropped).cause()).isEqualTo(DROPPED_SPAM_FILTER);
    // Another object has its own bucket.
    assertThat(correlator.correlate(normal("q", "Pulled", "m")))
        .isNotInstanceOf(Correlation.Drop.class);

    clock.step(Duration.ofSeconds(299));
    assertThat(correlator.correlate(normal("p", "Pulled", "m")))
        .isInstanceOf(Correlation.Drop.class);
    clock.step(Duration.ofSeconds(1));
    assertThat(correlator.correlate(normal("p", "Pulled", "m")))
        .isInstanceOf(Correlation.Update.class);
    assertThat(correlator.correlate(normal("p", "Pulled", "m")))
        .isInstanceOf(Correlation.Drop.class);

    // The bucket refills to its burst, not beyond.
    clock.step(Duration.ofDays(1));
    int passed = 0;
    for (int i = 0; i < 40; i++) {
      if (!(correlator.correlate(normal("p", "Pulled", "m")) instanceof Correlation.Drop)) {
        passed++;
      }
    }
    assertThat(passed).isEqualTo(25);
    assertThat(correlator.stats().cause(DROPPED_SPAM_FILTER)).isEqualTo(3 + 15);
    assertThat(correlator.stats().reason("Pulled", DROPPED_SPAM_FILTER)).isEqualTo(18);
  }

  @Test
  void aDroppedRepeatStillCountsTowardsTheNextPatch() {
    var options = CorrelatorOptions.upstream().withSpamFilter(Duration.ofMinutes(5), 1);
    var correlator = new EventCorrelator(clock, options);
    correlator.correlate(normal("p", "Pulled", "m"));
    assertThat(correlator.correlate(normal("p", "Pulled", "m")))
        .isInstanceOf(Correlation.Drop.class);
    clock.step(Duration.ofSeconds(300));
    assertThat(correlator.correlate(normal("p", "Pulled", "m")).event().getCount()).isEqualTo(3);
  }

  @Test
  void aDroppedFirstEventIsCreatedWhenItComesAgain() {
    var correlator =
        new EventCorrelator(
            clock, CorrelatorOptions.upstream().withSpamFilter(Duration.ofMinutes(5), 1));
    correlator.correlate(normal("p", "Pulled", "m1"));
    assertThat(correlator.correlate(normal("p", "Pulled", "m2")))
        .isInstanceOf(Correlation.Drop.class);
    clock.step(Duration.ofSeconds(300));
    Correlation again = correlator.correlate(normal("p", "Pulled", "m2"));
    assertThat(again).isInstanceOf(Correlation.Create.class);
    assertThat(again.event().getCount()).isEqualTo(1);
  }

  /**
   * Seed 000: a pod with 10 containers emits Pulled, Created and Started for each, then its crash
   * loop's BackOff and an OOM kill. Upstream's bucket is spent by then, so both Warnings vanish.
   */
  private List<Correlation> tenContainersThenWarnings(EventCorrelator correlator) {
    List<Correlation> out = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      String c = "c" + i;
      out.add(
          correlator.correlate(
              event(
                  "big",
                  c,
                  "Normal",
                  "Pulled",
                  "Container image \"busybox:1.35\" already present on machine")));
      out.add(correlator.correlate(event("big", c, "Normal", "Created", "Created container " + c)));
      out.add(correlator.correlate(event("big", c, "Normal", "Started", "Started container " + c)));
    }
    out.add(
        correlator.correlate(
            event("big", "c3", "Warning", "BackOff", "Back-off restarting failed container")));
    out.add(
        correlator.correlate(
            event("big", "c7", "Warning", "OOMKilled", "Container c7 was OOM-killed")));
    return out;
  }

  @Test
  void upstreamDropsTheWarningsOfABusyPod() {
    var correlator = new EventCorrelator(clock, CorrelatorOptions.upstream());
    List<Correlation> out = tenContainersThenWarnings(correlator);

    assertThat(out.subList(0, 25)).noneMatch(c -> c instanceof Correlation.Drop);
    assertThat(out.subList(25, 32)).allMatch(c -> c instanceof Correlation.Drop);
    assertThat(out.get(30).event().getReason()).isEqualTo("BackOff");
    assertThat(out.get(31).event().getReason()).isEqualTo("OOMKilled");

    CorrelatorStats stats = correlator.stats();
    assertThat(stats.cause(DROPPED_SPAM_FILTER)).isEqualTo(7);
    assertThat(stats.reason("BackOff", DROPPED_SPAM_FILTER)).isEqualTo(1);
    assertThat(stats.reason("OOMKilled", DROPPED_SPAM_FILTER)).isEqualTo(1);
    assertThat(
            stats.byReason().values().stream()
                .mapToLong(byCause -> byCause.getOrDefault(DROPPED_SPAM_FILTER, 0L))
                .sum())
        .isEqualTo(7);
  }

  @Test
  void jkubeletKeepsThemAndCountsWhatItDrops() {
    var correlator = new EventCorrelator(clock, CorrelatorOptions.defaults());
    List<Correlation> out = tenContainersThenWarnings(correlator);

    assertThat(out.get(30)).isInstanceOf(Correlation.Create.class);
    assertThat(out.get(30).event().getReason()).isEqualTo("BackOff");
    assertThat(out.get(31)).isInstanceOf(Correlation.Create.class);
    assertThat(out.get(31).event().getReason()).isEqualTo("OOMKilled");
    // The first Pulled, Created and Started spend nothing: 27 repeats share 25 tokens.
    long drops = out.stream().filter(c -> c instanceof Correlation.Drop).count();
    assertThat(drops).isEqualTo(2);
    assertThat(correlator.stats().cause(DROPPED_SPAM_FILTER)).isEqualTo(drops);
    assertThat(correlator.stats().reason("Started", DROPPED_SPAM_FILTER)).isEqualTo(1);
    assertThat(correlator.stats().reason("Created", DROPPED_SPAM_FILTER)).isEqualTo(1);

    // Warnings stay protected even with an empty bucket, repeats included.
    for (int i = 0; i < 50; i++) {
      clock.step(Duration.ofSeconds(10));
      assertThat(
              correlator.correlate(
                  event("big", "c3", "Warning", "BackOff", "Back-off restarting failed container")))
          .isInstanceOf(Correlation.Update.class);
    }
    // A new Normal reason for the object gets through once, then waits for tokens.
    assertThat(correlator.correlate(event("big", "c3", "Normal", "Killing", "Stopping c3")))
        .isInstanceOf(Correlation.Create.class);
    assertThat(correlator.correlate(event("big", "c3", "Normal", "Killing", "Stopping c3")))
        .isNotInstanceOf(Correlation.Drop.class); // 500 s passed: one token came back
    assertThat(correlator.correlate(event("big", "c3", "Normal", "Killing", "Stopping c3")))
        .isInstanceOf(Correlation.Drop.class);
  }

  @Test
  void defaultsAndUpstream() {
    CorrelatorOptions d = CorrelatorOptions.defaults();
    assertThat(d.lruSize()).isEqualTo(4096);
    assertThat(d.maxSimilarEvents()).isEqualTo(10);
    assertThat(d.aggregateWindow()).isEqualTo(Duration.ofSeconds(600));
    assertThat(d.refillPerSecond()).isEqualTo(1.0 / 300);
    assertThat(d.burst()).isEqualTo(25);
    assertThat(d.protectWarnings()).isTrue();
    assertThat(CorrelatorOptions.upstream())
        .isEqualTo(new CorrelatorOptions(4096, 10, Duration.ofSeconds(600), 1.0 / 300, 25, false));
  }

  @Test
  void theSpamFilterSettingsGiveTheBucketAndTheirDefaultsAreClientGos() {
    CorrelatorOptions d = CorrelatorOptions.defaults();
    assertThat(d.withSpamFilter(Duration.ofMinutes(5), 25)).isEqualTo(d);
    assertThat(d.withSpamFilter(Duration.ofSeconds(2), 3).refillPerSecond()).isEqualTo(0.5);
    assertThat(d.withSpamFilter(Duration.ofSeconds(2), 3).burst()).isEqualTo(3);
    assertThat(d.withSpamFilter(Duration.ofSeconds(2), 3).protectWarnings()).isTrue();
  }

  @Test
  void theSpamFilterSettingsTakeEffect() {
    var correlator =
        new EventCorrelator(
            clock, CorrelatorOptions.upstream().withSpamFilter(Duration.ofMillis(200), 10));
    int passed = 0;
    for (int i = 0; i < 30; i++) {
      if (!(correlator.correlate(normal("p", "Pulled", "m")) instanceof Correlation.Drop)) {
        passed++;
      }
    }
    assertThat(passed).isEqualTo(10);
    clock.step(Duration.ofSeconds(1)); // 5 tokens per second
    passed = 0;
    for (int i = 0; i < 30; i++) {
      if (!(correlator.correlate(normal("p", "Pulled", "m")) instanceof Correlation.Drop)) {
        passed++;
      }
    }
    assertThat(passed).isEqualTo(5);
  }

  @Test
  void invalidOptionsAreRefused() {
    assertThatThrownBy(
            () -> new CorrelatorOptions(0, 10, Duration.ofSeconds(600), 1.0 / 300, 25, true))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CorrelatorOptions(4096, 10, Duration.ofSeconds(600), -1, 25, true))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CorrelatorOptions(4096, 10, Duration.ofSeconds(600), 0, 25, true))
        .as("the spam filter's bucket must refill")
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> new CorrelatorOptions(4096, 10, Duration.ofSeconds(600), 1.0 / 300, 0, true))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
