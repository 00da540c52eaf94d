package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.events.EventCorrelator;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.RecordingRecorder;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.runtime.ForwardingRuntime;
import io.jkubelet.agent.runtime.PullObserver;
import io.jkubelet.agent.runtime.PullProgress;
import io.jkubelet.agent.runtime.RegistryAuth;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.ImageSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ImagePullsTest {
  private static final String IMAGE = "registry.test/big:1";

  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-28T10:00:00Z"));
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final EnginePull engine = new EnginePull(new FakeRuntime(clock));
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final Counts counts = new Counts();
  private final PodTimelines timelines =
      PodTimelines.create(clock, null, PodTimelines.Listener.NONE);
  private final EventRecorder recorder =
      RecordingRecorder.to(
          o ->
              events.add(
                  o.involved().getName()
                      + " "
                      + o.reason()
                      + " ["
                      + o.annotations().getOrDefault(EventCorrelator.PROGRESS_OF, "")
                      + "]: "
                      + o.message()));

  private final ImagePulls pulls = pullsWith(ImageSettings.DEFAULTS);

  private ImagePulls pullsWith(ImageSettings settings) {
    return new ImagePulls(
        engine, recorder, new Time(clock, d -> {}, schedulers), settings, counts, timelines);
  }

  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

  /** An engine whose one pull runs until the test ends it, feeding the progress it is given. */
  private static final class EnginePull extends ForwardingRuntime {
    final AtomicInteger pulls = new AtomicInteger();
    volatile PullObserver observer;
    volatile CompletableFuture<String> outcome = new CompletableFuture<>();
    volatile CompletableFuture<Void> turn = CompletableFuture.completedFuture(null);

    EnginePull(FakeRuntime delegate) {
      super(delegate);
    }

    @Override
    public void pullImage(
        String image, RegistryAuth auth, Duration timeout, PullObserver observer) {
      turn.join(); // a pull waiting for its turn, as behind serializeImagePulls
      pulls.incrementAndGet();
      CompletableFuture<String> mine = outcome;
      observer.started(why -> mine.complete(why));
      this.observer = observer;
      String failure = mine.join();
      if (failure != null) {
        throw new RuntimeError(RuntimeError.Kind.IMAGE_PULL, failure);
      }
    }

    void progress(String id, String status, long current, long total) {
      observer.progress(new PullProgress(id, status, current, total));
    }
  }

  private static final class Counts implements ImagePulls.Listener {
    final AtomicInteger started = new AtomicInteger();
    final AtomicLong bytes = new AtomicLong();
    final List<Boolean> finished = new CopyOnWriteArrayList<>();

    @Override
    public void started() {
      started.incrementAndGet();
    }

    @Override
    public void downloaded(long n) {
      bytes.addAndGet(n);
    }

    @Override
    public void finished(Duration took, boolean succeeded) {
      finished.add(succeeded);
    }
  }

  @AfterEach
  void end() {
    engine.outcome.complete(null);
    threads.shutdownNow();
    pulls.stop();
  }

  private CompletableFuture<String> pull(String uid) {
    return pull(pulls, uid);
  }

  private CompletableFuture<String> pull(ImagePulls pulls, String uid) {
    Pod pod = TestPods.simple(uid, "pod-" + uid, "app");
    ImagePulls.Waiter w = new ImagePulls.Waiter(uid, "app", Refs.container(pod, "app", false));
    return CompletableFuture.supplyAsync(
        () -> pulls.pull(IMAGE, List.of(RegistryAuth.NONE), null, w), threads);
  }

  private void awaitEnginePull() {
    await().until(() -> engine.observer != null);
  }

  @Test
  void theProgressPatchesThePullingEventEveryTenSecondsOnlyWhenThereIsNews() throws Exception {
    pulls.start();
    CompletableFuture<String> done = pull("u1");
    awaitEnginePull();
    engine.progress("aaa", "Pulling fs layer", 0, 0);
    clock.step(Duration.ofSeconds(5));
    engine.progress("aaa", "Downloading", 25_000_000, 100_000_000);
    schedulers.advance(Duration.ofSeconds(5));
    assertThat(events)
        .containsExactly(
            "pod-u1 Pulling [Pulling image \"registry.test/big:1\"]: Pulling image"
                + " \"registry.test/big:1\": 25MB of 100MB (0 of 1 layers done), 2.5MB/s, about"
                + " 30s left");

    schedulers.advance(Duration.ofSeconds(10));
    assertThat(events).as("no news, no update").hasSize(1);

    engine.progress("aaa", "Downloading", 50_000_000, 100_000_000);
    schedulers.advance(Duration.ofSeconds(10));
    assertThat(events).hasSize(2);
    assertThat(events.get(1))
        .endsWith("50MB of 100MB (0 of 1 layers done), 1.667MB/s, about 30s left");

    assertThat(pulls.forPod("u1"))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.image()).isEqualTo(IMAGE);
              assertThat(s.containers()).containsExactly("app");
              assertThat(s.amounts().bytes()).isEqualTo(50_000_000);
              assertThat(s.amounts().totalBytes()).isEqualTo(100_000_000);
              assertThat(s.pace().secondsLeft()).isEqualTo(30);
            });
    assertThat(pulls.forPod("other")).isEmpty();
    assertThat(io.jkubelet.agent.util.ApiSerialization.SHARED.asJson(pulls.forPod("u1")))
        .as("as /pods shows it")
        .contains("\"image\":\"registry.test/big:1\"")
        .contains("\"bytes\":50000000")
        .contains("\"totalBytes\":100000000")
        .contains("\"secondsLeft\":30")
        .contains("\"startedAt\":\"2026-11-28T10:00:00Z\"");
    var json =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(io.jkubelet.agent.util.ApiSerialization.SHARED.asJson(pulls.forPod("u1")))
            .get(0);
    List<String> keys = new java.util.ArrayList<>();
    json.fieldNames().forEachRemaining(keys::add);
    assertThat(keys)
        .as("one flat object, its fields in this order")
        .containsExactly(
            "image",
            "containers",
            "bytes",
            "totalBytes",
            "totalKnown",
            "layers",
            "layersDone",
            "bytesPerSecond",
            "secondsLeft",
            "startedAt",
            "lastProgressAt",
            "progress");

    engine.progress("aaa", "Pull complete", 0, 0);
    engine.outcome.complete(null);
    assertThat(done.join()).isNull();
    assertThat(pulls.inFlight()).isZero();
    assertThat(pulls.forPod("u1")).isEmpty();
    assertThat(counts.started).hasValue(1);
    assertThat(counts.bytes).hasValue(100_000_000);
    assertThat(counts.finished).containsExactly(true);
  }

  @Test
  void podsWaitingOnTheSameImageShareOnePullAndItsProgress() {
    pulls.start();
    CompletableFuture<String> first = pull("u1");
    awaitEnginePull();
    CompletableFuture<String> second = pull("u2");
    await().until(() -> pulls.forPod("u2").size() == 1);
    engine.progress("aaa", "Downloading", 10_000_000, 20_000_000);
    schedulers.advance(Duration.ofSeconds(10));
    assertThat(events).hasSize(2);
    assertThat(events.get(0)).startsWith("pod-u1 Pulling");
    assertThat(events.get(1)).startsWith("pod-u2 Pulling");
    assertThat(events.get(0).substring(7)).isEqualTo(events.get(1).substring(7));

    engine.outcome.complete(null);
    assertThat(first.join()).isNull();
    assertThat(second.join()).isNull();
    assertThat(engine.pulls).as("the engine pulled once").hasValue(1);
  }

  @Test
  void aPullWithoutProgressForTheDeadlineIsCancelledWithUpstreamsWords() {
    pulls.start();
    CompletableFuture<String> done = pull("u1");
    awaitEnginePull();
    engine.progress("aaa", "Downloading", 1_000_000, 9_000_000);
    schedulers.advance(Duration.ofSeconds(50));
    assertThat(done).isNotDone();
    schedulers.advance(Duration.ofSeconds(10));
    assertThat(done.join())
        .isEqualTo(
            "rpc error: code = Unknown desc = Cancel pulling image \"registry.test/big:1\""
                + " because of no progress for 1m0s, latest progress: \"aaa: Downloading"
                + " 1MB/9MB\"");
    assertThat(counts.finished).containsExactly(false);
    assertThat(schedulers.pending()).as("the pull's reports end with it").isZero();
  }

  @Test
  void withProgressOffThePullingEventIsLeftAloneWhileTheDeadlineAndPodsStillWork() {
    ImagePulls quiet = pullsWith(new ImageSettings(Duration.ofMinutes(1), false));
    quiet.start();
    try {
      CompletableFuture<String> done = pull(quiet, "u1");
      awaitEnginePull();
      engine.progress("aaa", "Downloading", 25_000_000, 100_000_000);
      schedulers.advance(Duration.ofSeconds(20));
      assertThat(events).as("imagePullProgress: false tells the pod nothing more").isEmpty();
      assertThat(quiet.forPod("u1"))
          .as("/pods still shows where the pull stands")
          .singleElement()
          .satisfies(s -> assertThat(s.amounts().bytes()).isEqualTo(25_000_000));
      schedulers.advance(Duration.ofSeconds(50));
      assertThat(done.join()).contains("because of no progress for 1m0s");
      assertThat(events).isEmpty();
    } finally {
      quiet.stop();
    }
  }

  @Test
  void theDeadlineCountsFromTheEnginesPullNotFromTheWaitForItsTurn() {
    engine.turn = new CompletableFuture<>();
    pulls.start();
    CompletableFuture<String> done = pull("u1");
    await().until(() -> schedulers.pending() > 0);
    schedulers.advance(Duration.ofSeconds(90));
    assertThat(done).as("waiting for its turn is no stall").isNotDone();
    engine.turn.complete(null);
    awaitEnginePull();
    schedulers.advance(Duration.ofSeconds(50));
    assertThat(done).isNotDone();
    schedulers.advance(Duration.ofSeconds(10));
    assertThat(done.join()).contains("because of no progress for 1m0s");
  }

  @Test
  void progressKeepsTheDeadlineAway() {
    pulls.start();
    CompletableFuture<String> done = pull("u1");
    awaitEnginePull();
    for (int i = 1; i <= 12; i++) {
      engine.progress("aaa", "Downloading", i * 1_000_000L, 100_000_000);
      schedulers.advance(Duration.ofSeconds(10));
    }
    assertThat(done).isNotDone();
    engine.outcome.complete(null);
    assertThat(done.join()).isNull();
  }

  @Test
  void aPullAfterTheLastEndedStartsAnew() {
    CompletableFuture<String> first = pull("u1");
    awaitEnginePull();
    engine.outcome.complete("Error response from daemon: manifest unknown");
    assertThat(first.join())
        .isEqualTo("rpc error: code = Unknown desc = Error response from daemon: manifest unknown");
    engine.outcome = new CompletableFuture<>();
    engine.outcome.complete(null);
    assertThat(pull("u1").join()).isNull();
    assertThat(engine.pulls).hasValue(2);
  }
}
