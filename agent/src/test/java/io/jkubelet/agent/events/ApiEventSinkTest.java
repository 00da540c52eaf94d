package io.jkubelet.agent.events;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.RecordingSleeper;
import io.jkubelet.agent.util.Sleeper;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/** The API sink against a hand-written writer: retries, give-ups, re-creates and the budget. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ApiEventSinkTest {
  private final FakeClock clock = new FakeClock();
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final FakeEventWriter writer = new FakeEventWriter();
  private final ScriptedCorrelator correlator = new ScriptedCorrelator();
  private final BroadcastRecorder recorder = TestEvents.recorder(clock);
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger sinkLog = (Logger) LoggerFactory.getLogger(ApiEventSink.class);

  /** Always answers {@code value}, so the first retry sleep is exactly {@code value * 10 s}. */
  private static RandomGenerator fixed(double value) {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        throw new UnsupportedOperationException();
      }

      @Override
      public double nextDouble() {
        return value;
      }
    };
  }

  @BeforeEach
  void captureLogs() {
    logs.start();
    sinkLog.addAppender(logs);
  }

  @AfterEach
  void releaseLogs() {
    sinkLog.detachAppender(logs);
  }

  private ApiEventSink sink(RandomGenerator random, int qps, int burst) {
    return new ApiEventSink(writer, correlator, clock, sleeper, random, qps, burst);
  }

  private ApiEventSink sink() {
    return sink(fixed(0.5), 1000, 1000);
  }

  private Event event(String reason) {
    return TestEvents.podEvent(
        recorder, TestEvents.pod("ns", "web", "uid-1"), EventType.Normal, reason, "msg " + reason);
  }

  @Test
  void createsAndRecordsTheWrittenEventInTheCorrelator() {
    ApiEventSink sink = sink();
    Event e = event("Pulled");

    sink.accept(e);

    assertThat(writer.ops()).containsExactly("create");
    assertThat(writer.calls().get(0).event()).isEqualTo(e);
    assertThat(correlator.written()).hasSize(1);
    assertThat(correlator.written().get(0).getMetadata().getResourceVersion()).isEqualTo("1");
    assertThat(sleeper.sleeps()).isEmpty();
    assertThat(sink.counts()).containsEntry("created", 1L);
  }

  @Test
  void failsThenRecoversWithinTheRetryCount() {
    writer.failCreates(500, 0, 503);
    ApiEventSink sink = sink();

    sink.accept(event("Started"));

    assertThat(writer.ops()).containsExactly("create", "create", "create", "create");
    assertThat(sleeper.sleeps())
        .containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(10));
    assertThat(correlator.written()).hasSize(1);
    assertThat(sink.counts()).containsEntry("created", 1L).doesNotContainKey("retryLimit");
  }

  @Test
  void givesUpAfterTwelveTriesWithUpstreamSleeps() {
    writer.failCreates(new int[20]); // 20 times no answer (code 0)
    ApiEventSink sink = sink(fixed(0.25), 1000, 1000);

    sink.accept(event("Started"));

    assertThat(writer.ops()).hasSize(12);
    List<Duration> expected = new java.util.ArrayList<>();
    expected.add(Duration.ofMillis(2500));
    expected.addAll(Collections.nCopies(10, Duration.ofSeconds(10)));
    assertThat(sleeper.sleeps()).isEqualTo(expected);
    assertThat(correlator.written()).isEmpty();
    assertThat(sink.counts()).containsEntry("retryLimit", 1L).doesNotContainKey("created");
    assertThat(logs.list)
        .anySatisfy(
            l -> {
              assertThat(l.getLevel()).isEqualTo(Level.ERROR);
              assertThat(l.getFormattedMessage()).startsWith("event sink: unable to write event");
            });
  }

  @Test
  void firstSleepIsRandomInZeroToTenSeconds() {
    Random random = new Random(7);
    ApiEventSink sink = sink(random, 1000, 1000);
    for (int i = 0; i < 50; i++) {
      writer.failCreates(503);
      sink.accept(event("Pulling"));
    }
    // Each event failed once, then succeeded: one first-retry sleep per event.
    assertThat(sleeper.sleeps())
        .hasSize(50)
        .allSatisfy(
            d ->
                assertThat(d)
                    .isGreaterThanOrEqualTo(Duration.ZERO)
                    .isLessThan(Duration.ofSeconds(10)));
    assertThat(sleeper.sleeps().stream().distinct().count()).isGreaterThan(1);
  }

  @Test
  void patchesAnUpdateAndRecreatesItWhenThePatchAnswers404() {
    correlator.update(2, "2026-01-01T00:00:05Z");
    writer.failPatches(404);
    ApiEventSink sink = sink();
    Event e =
        new EventBuilder(event("BackOff"))
            .editMetadata()
            .withResourceVersion("7")
            .endMetadata()
            .build();

    sink.accept(e);

    assertThat(writer.ops()).containsExactly("patch", "create");
    assertThat(writer.calls().get(0).patch()).contains("\"count\":2");
    assertThat(writer.calls().get(1).event().getMetadata().getName())
        .isEqualTo(e.getMetadata().getName());
    assertThat(writer.calls().get(1).event().getMetadata().getResourceVersion()).isNull();
    assertThat(sleeper.sleeps()).isEmpty();
    assertThat(correlator.written()).hasSize(1);
    assertThat(sink.counts()).containsEntry("recreated", 1L);
  }

  @Test
  void patchesAnUpdate() {
    correlator.update(3, "2026-01-01T00:00:05Z");
    ApiEventSink sink = sink();

    sink.accept(event("BackOff"));

    assertThat(writer.ops()).containsExactly("patch");
    assertThat(sink.counts()).containsEntry("patched", 1L);
    assertThat(correlator.written()).hasSize(1);
  }

  @ParameterizedTest(name = "HTTP {0} on create gives up at once")
  @ValueSource(ints = {400, 403, 404, 409, 422})
  void aClientErrorGivesUpAtOnceWithAWarning(int code) {
    writer.failCreates(code);
    ApiEventSink sink = sink();

    sink.accept(event("Failed"));

    assertThat(writer.ops()).containsExactly("create");
    assertThat(sleeper.sleeps()).isEmpty();
    assertThat(correlator.written()).isEmpty();
    assertThat(sink.counts()).containsEntry("rejected", 1L);
    assertThat(logs.list)
        .filteredOn(l -> l.getLevel() == Level.WARN)
        .singleElement()
        .satisfies(
            l ->
                assertThat(l.getFormattedMessage())
                    .contains("server rejected event", "with " + code, "not retrying"));
  }

  @Test
  void a422OnPatchGivesUpToo() {
    correlator.update(2, "2026-01-01T00:00:05Z");
    writer.failPatches(422);
    ApiEventSink sink = sink();

    sink.accept(event("BackOff"));

    assertThat(writer.ops()).containsExactly("patch");
    assertThat(sink.counts()).containsEntry("rejected", 1L);
  }

  @Test
  void aCorrelatorDropIsCountedAndNotWritten() {
    correlator.answer(e -> new Correlation.Drop(e, CorrelatorStats.Cause.DROPPED_SPAM_FILTER));
    ApiEventSink sink = sink();

    sink.accept(event("Pulling"));
    sink.accept(event("Pulling"));

    assertThat(writer.ops()).isEmpty();
    assertThat(sink.counts()).containsEntry("dropped/spam-filter", 2L);
  }

  @Test
  void theRateBudgetWaitsOnTheClock() {
    ApiEventSink sink = sink(fixed(0.5), 1, 2);

    for (int i = 0; i < 4; i++) {
      sink.accept(event("Pulled"));
    }

    assertThat(writer.ops()).hasSize(4);
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
  }

  @Test
  void anInterruptStopsTheRetriesAndKeepsTheFlag() throws Exception {
    writer.failCreates(503, 503, 503);
    Sleeper interrupted =
        d -> {
          throw new InterruptedException("stop");
        };
    ApiEventSink sink =
        new ApiEventSink(writer, correlator, clock, interrupted, fixed(0.5), 1000, 1000);
    java.util.concurrent.atomic.AtomicBoolean flag =
        new java.util.concurrent.atomic.AtomicBoolean();
    Thread t =
        new Thread(
            () -> {
              sink.accept(event("Pulled"));
              flag.set(Thread.currentThread().isInterrupted());
            });
    t.start();
    t.join();
    assertThat(flag).isTrue();
    assertThat(writer.ops()).containsExactly("create");
  }

  @Test
  void theProductionConstructorTakesARealCorrelator() {
    ApiEventSink sink =
        new ApiEventSink(
            writer,
            new EventCorrelator(clock, CorrelatorOptions.defaults()),
            clock,
            sleeper,
            fixed(0.5),
            50,
            100);
    sink.accept(event("Pulled"));
    assertThat(writer.ops()).isNotEmpty();
    assertThat(sink.correlatorStats()).isNotNull();
    assertThat(Map.copyOf(sink.counts())).isNotEmpty();
  }
}
