package io.jkubelet.agent.prober;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

@Timeout(20)
class ProbeWorkerTest {
  private static final String POD = "uid-1";
  private static final String CID = "docker://c1";

  private final FakeClock clock = new FakeClock();
  private final Instant started = clock.instant();
  private final FakeExecRunner runner = new FakeExecRunner();
  private final List<ProberEvent> events = new ArrayList<>();
  private final ResultsManager results = new ResultsManager(events::add);
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final Scheduler scheduler = schedulers.create("prober-timer");
  private final ExecutorService attempts = Executors.newVirtualThreadPerTaskExecutor();
  private final List<String> attempted = new CopyOnWriteArrayList<>();
  private final ProbeWorker.Shared shared =
      new ProbeWorker.Shared(
          results,
          (key, id, outcome) -> attempted.add(key.type() + " " + id + " " + outcome.result()),
          clock,
          scheduler,
          attempts,
          () -> 0.5);
  private Optional<ContainerSnapshot> snapshot =
      Optional.of(ContainerSnapshot.running(CID, "127.0.0.1", started));

  @AfterEach
  void shutdown() throws InterruptedException {
    scheduler.close();
    attempts.shutdown();
    attempts.awaitTermination(5, TimeUnit.SECONDS);
  }

  private ProbeWorker worker(ProbeType type, ProbeSettings settings) {
    return new ProbeWorker(
        new ProbeWorker.Key(POD, "app", type),
        new Prober.ExecProber(List.of("true"), runner),
        settings,
        () -> snapshot,
        shared);
  }

  private static ProbeSettings settings(int delaySeconds, int success, int failure) {
    return new ProbeSettings(
        Duration.ofSeconds(delaySeconds),
        Duration.ofSeconds(10),
        Duration.ofSeconds(1),
        success,
        failure);
  }

  private ProbeResult published(ProbeType type) {
    return results.get(CID, type).orElseThrow();
  }

  private List<ProbeResult> changes() {
    return events.stream()
        .map(
            e ->
                switch (e) {
                  case ProberEvent.ResultChange c -> c.result();
                })
        .toList();
  }

  @Test
  void initialResultsAsUpstream() {
    assertThat(ProbeType.READINESS.initialResult()).isEqualTo(ProbeResult.FAILURE);
    assertThat(ProbeType.LIVENESS.initialResult()).isEqualTo(ProbeResult.SUCCESS);
    assertThat(ProbeType.STARTUP.initialResult()).isEqualTo(ProbeResult.UNKNOWN);

    for (ProbeType type : ProbeType.values()) {
      ProbeWorker w = worker(type, settings(100, 1, 3)); // still in the initial delay
      assertThat(w.probeOnce()).isTrue();
      assertThat(published(type)).isEqualTo(type.initialResult());
    }
    assertThat(runner.calls()).isEmpty();
  }

  @Test
  void livenessFlipsOnTheThirdConsecutiveFailure() {
    ProbeWorker w = worker(ProbeType.LIVENESS, ProbeSettings.DEFAULTS);
    runner.fail();

    w.probeOnce();
    w.probeOnce();
    assertThat(published(ProbeType.LIVENESS)).isEqualTo(ProbeResult.SUCCESS);
    w.probeOnce();
    assertThat(published(ProbeType.LIVENESS)).isEqualTo(ProbeResult.FAILURE);
    assertThat(changes()).containsExactly(ProbeResult.SUCCESS, ProbeResult.FAILURE);
    assertThat(events.get(1))
        .isEqualTo(
            new ProberEvent.ResultChange(POD, "app", CID, ProbeType.LIVENESS, ProbeResult.FAILURE));
    assertThat(w.lastOutcome()).contains(ProbeOutcome.failure("boom (exit code 1)"));
  }

  @Test
  void aSuccessResetsTheFailureRun() {
    ProbeWorker w = worker(ProbeType.LIVENESS, ProbeSettings.DEFAULTS);
    runner.fail();
    w.probeOnce();
    w.probeOnce();
    runner.succeed();
    w.probeOnce();
    runner.fail();
    w.probeOnce();
    w.probeOnce();
    assertThat(published(ProbeType.LIVENESS)).isEqualTo(ProbeResult.SUCCESS);
    w.probeOnce();
    assertThat(published(ProbeType.LIVENESS)).isEqualTo(ProbeResult.FAILURE);
  }

  @Test
  void failedLivenessHoldsUntilANewContainer() {
    ProbeWorker w = worker(ProbeType.LIVENESS, settings(0, 1, 1));
    runner.fail();
    w.probeOnce();
    assertThat(published(ProbeType.LIVENESS)).isEqualTo(ProbeResult.FAILURE);
    runner.succeed();
    w.probeOnce();
    assertThat(runner.calls()).hasSize(1); // on hold

    snapshot = Optional.of(ContainerSnapshot.running("docker://c2", "127.0.0.1", clock.instant()));
    w.probeOnce();
    assertThat(results.get("docker://c2", ProbeType.LIVENESS)).contains(ProbeResult.SUCCESS);
    assertThat(results.get(CID, ProbeType.LIVENESS)).isEmpty();
    assertThat(runner.calls()).hasSize(2);
  }

  @Test
  void readinessNeedsTwoSuccessesWithSuccessThresholdTwo() {
    ProbeWorker w = worker(ProbeType.READINESS, settings(0, 2, 3));
    w.probeOnce();
    assertThat(published(ProbeType.READINESS)).isEqualTo(ProbeResult.FAILURE);
    w.probeOnce();
    assertThat(published(ProbeType.READINESS)).isEqualTo(ProbeResult.SUCCESS);
    assertThat(changes()).containsExactly(ProbeResult.FAILURE, ProbeResult.SUCCESS);

    runner.fail(); // readiness is not put on hold: it flips back and forth
    w.probeOnce();
    w.probeOnce();
    w.probeOnce();
    assertThat(published(ProbeType.READINESS)).isEqualTo(ProbeResult.FAILURE);
    runner.succeed();
    w.probeOnce();
    w.probeOnce();
    assertThat(published(ProbeType.READINESS)).isEqualTo(ProbeResult.SUCCESS);
  }

  @Test
  void initialDelayIsCountedFromTheContainerStartOnTheClock() {
    ProbeWorker w = worker(ProbeType.READINESS, settings(15, 1, 3));
    clock.step(Duration.ofSeconds(14));
    w.probeOnce();
    assertThat(runner.calls()).isEmpty();
    clock.step(Duration.ofSeconds(1));
    w.probeOnce();
    assertThat(runner.calls()).hasSize(1);
    assertThat(runner.calls().get(0))
        .isEqualTo(new FakeExecRunner.Call(CID, List.of("true"), Duration.ofSeconds(1)));
    assertThat(published(ProbeType.READINESS)).isEqualTo(ProbeResult.SUCCESS);
  }

  @Test
  void livenessAndReadinessWaitForStartup() {
    snapshot = snapshot.map(c -> c.withStarted(false));
    ProbeWorker liveness = worker(ProbeType.LIVENESS, settings(0, 1, 1));
    ProbeWorker readiness = worker(ProbeType.READINESS, settings(0, 1, 1));
    ProbeWorker startup = worker(ProbeType.STARTUP, settings(0, 1, 1));
    runner.fail();
    liveness.probeOnce();
    readiness.probeOnce();
    assertThat(runner.calls()).isEmpty();
    assertThat(published(ProbeType.LIVENESS)).isEqualTo(ProbeResult.SUCCESS);

    runner.succeed();
    startup.probeOnce();
    assertThat(published(ProbeType.STARTUP)).isEqualTo(ProbeResult.SUCCESS);
    assertThat(runner.calls()).hasSize(1);

    snapshot = snapshot.map(c -> c.withStarted(true)); // as the next status shows it
    startup.probeOnce(); // a startup probe stops once startup is done
    assertThat(runner.calls()).hasSize(1);
    liveness.probeOnce();
    readiness.probeOnce();
    assertThat(runner.calls()).hasSize(3);
    assertThat(published(ProbeType.READINESS)).isEqualTo(ProbeResult.SUCCESS);
  }

  @Test
  void unknownOutcomesAreThrownAway() {
    ProbeWorker w = worker(ProbeType.LIVENESS, settings(0, 1, 2));
    runner.fail();
    w.probeOnce();
    runner.setError(new IllegalStateException("docker down"));
    w.probeOnce();
    assertThat(w.lastOutcome().orElseThrow().result()).isEqualTo(ProbeResult.UNKNOWN);
    assertThat(published(ProbeType.LIVENESS)).isEqualTo(ProbeResult.SUCCESS);
    runner.fail();
    w.probeOnce();
    assertThat(published(ProbeType.LIVENESS)).isEqualTo(ProbeResult.FAILURE);
  }

  @Test
  void noStatusKeepsGoingAndATerminalContainerStops() {
    ProbeWorker w = worker(ProbeType.READINESS, settings(0, 1, 3));
    snapshot = Optional.empty();
    assertThat(w.probeOnce()).isTrue();
    assertThat(events).isEmpty();

    snapshot = Optional.of(ContainerSnapshot.running(CID, "127.0.0.1", started));
    w.probeOnce();
    assertThat(published(ProbeType.READINESS)).isEqualTo(ProbeResult.SUCCESS);

    snapshot = Optional.of(new ContainerSnapshot(CID, "127.0.0.1", null, false, false, false));
    assertThat(w.probeOnce()).isTrue();
    assertThat(published(ProbeType.READINESS)).isEqualTo(ProbeResult.FAILURE);

    snapshot = Optional.of(new ContainerSnapshot(CID, "127.0.0.1", null, false, false, true));
    assertThat(w.probeOnce()).isFalse();
  }

  @Test
  void startSchedulesOnTheSharedSchedulerAndStopCancels() {
    List<String> ticks = new ArrayList<>();
    ProbeWorker.Shared direct =
        new ProbeWorker.Shared(
            results,
            (key, id, outcome) -> ticks.add(clock.instant().toString()),
            clock,
            scheduler,
            Runnable::run, // the attempt runs on the tick, so the fake clock alone drives it
            () -> 0.5);
    ProbeWorker w =
        new ProbeWorker(
            new ProbeWorker.Key(POD, "app", ProbeType.READINESS),
            new Prober.ExecProber(List.of("true"), runner),
            new ProbeSettings(Duration.ZERO, Duration.ofSeconds(10), Duration.ofSeconds(1), 1, 3),
            () -> snapshot,
            direct);
    assertThat(w.healthy().ok()).isFalse();
    assertThat(schedulers.pending()).isZero(); // the constructor starts nothing

    w.start();
    assertThat(w.healthy().ok()).isTrue();
    schedulers.advance(Duration.ofMillis(4999));
    assertThat(runner.calls()).as("the first delay is half the period").isEmpty();
    schedulers.advance(Duration.ofMillis(1));
    schedulers.advance(Duration.ofSeconds(20));
    assertThat(ticks)
        .containsExactly(
            started.plusSeconds(5).toString(),
            started.plusSeconds(15).toString(),
            started.plusSeconds(25).toString());
    assertThat(published(ProbeType.READINESS)).isEqualTo(ProbeResult.SUCCESS);
    assertThat(w.stats())
        .isEqualTo(
            new ProbeWorker.Stats(
                w.key(),
                Duration.ofSeconds(10),
                3,
                Duration.ofSeconds(10),
                Duration.ofSeconds(10),
                0));

    w.stop();
    assertThat(schedulers.pending()).isZero();
    schedulers.advance(Duration.ofMinutes(1));
    assertThat(runner.calls()).hasSize(3);
    assertThat(results.get(CID, ProbeType.READINESS)).isEmpty();
    assertThat(w.probeOnce()).isFalse();
  }

  @Test
  void aTickThatFindsTheAttemptStillRunningIsSkippedAndCounted() {
    List<Runnable> queued = new ArrayList<>();
    ProbeWorker w = heldWorker(ProbeType.READINESS, settings(0, 1, 3), queued);
    w.start();
    schedulers.advance(Duration.ofSeconds(25)); // ticks at 0, 10 and 20 s; one attempt queued
    assertThat(queued).hasSize(1);
    assertThat(w.stats().skipped()).isEqualTo(2);
    queued.get(0).run();
    schedulers.advance(Duration.ofSeconds(10));
    assertThat(queued).hasSize(2);
    assertThat(w.stats().attempts()).isEqualTo(1);
    w.stop();
  }

  @Test
  void anAttemptPastItsTimeoutIsReportedOnceAsAWarning() {
    List<Runnable> queued = new ArrayList<>();
    ProbeWorker w =
        heldWorker(
            ProbeType.LIVENESS,
            new ProbeSettings(Duration.ZERO, Duration.ofSeconds(2), Duration.ofSeconds(1), 1, 3),
            queued);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    Logger log = (Logger) LoggerFactory.getLogger(ProbeWorker.class);
    logs.start();
    log.addAppender(logs);
    try {
      w.start();
      schedulers.advance(Duration.ofSeconds(6)); // 1 s timeout + 5 s grace: not yet past
      assertThat(warnings(logs)).isEmpty();
      schedulers.advance(Duration.ofSeconds(20)); // the attempt never returns
      assertThat(warnings(logs))
          .containsExactly(
              "Prober liveness uid-1/app: an attempt has run for 8s, past its timeout of 1s; not"
                  + " probing again until it returns");
      queued.get(0).run(); // it returns at last: the next one starts afresh
      schedulers.advance(Duration.ofSeconds(2));
      assertThat(queued).hasSize(2);
      schedulers.advance(Duration.ofSeconds(20));
      assertThat(warnings(logs)).hasSize(2);
    } finally {
      log.detachAppender(logs);
      w.stop();
    }
  }

  /**
   * A worker whose attempts are queued, not run: each runs only when the test runs it, and its
   * first tick comes at once.
   */
  private ProbeWorker heldWorker(ProbeType type, ProbeSettings settings, List<Runnable> queued) {
    return new ProbeWorker(
        new ProbeWorker.Key(POD, "app", type),
        new Prober.ExecProber(List.of("true"), runner),
        settings,
        () -> snapshot,
        new ProbeWorker.Shared(
            results, ProbeWorker.Listener.NONE, clock, scheduler, queued::add, () -> 0.0));
  }

  private static List<String> warnings(ListAppender<ILoggingEvent> logs) {
    return logs.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Test
  void stopNeverWaitsForAnAttemptInFlightAndItsResultIsDropped() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecRunner blocking =
        (id, cmd, timeout) -> {
          entered.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return new ExecResult(1, "late", false);
        };
    ProbeWorker w =
        new ProbeWorker(
            new ProbeWorker.Key(POD, "app", ProbeType.LIVENESS),
            new Prober.ExecProber(List.of("true"), blocking),
            settings(0, 1, 1),
            () -> snapshot,
            shared);
    var attempt = attempts.submit(w::probeOnce);
    entered.await();
    w.stop(); // returns while the attempt still blocks
    assertThat(results.get(CID, ProbeType.LIVENESS)).isEmpty();
    release.countDown();
    assertThat(attempt.get()).isFalse();
    assertThat(results.get(CID, ProbeType.LIVENESS)).as("the late failure is dropped").isEmpty();
    assertThat(changes()).containsExactly(ProbeResult.SUCCESS); // only the initial result
    assertThat(attempted).isEmpty();
  }
}
