package io.jkubelet.agent.terminating;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.events.EventCorrelator;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.RecordingRecorder;
import io.jkubelet.agent.kuberuntime.PreStopsRunning;
import io.jkubelet.agent.runtime.CallsInFlight;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ForwardingRuntime;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.ApiSerialization;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Time;
import io.jkubelet.agent.volume.VolumeManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Each cause that holds a deleted pod, and the pod whose grace runs normally, on a fake clock. */
@Timeout(30)
class TerminationWatchTest {
  private static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");
  private static final String UID = "u1";

  private final FakeClock clock = new FakeClock(T0);
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final List<Pod> pods = new CopyOnWriteArrayList<>();
  private final Map<String, PodStatus> statuses = new HashMap<>();
  private final Map<String, VolumeManager.TeardownFailure> volumes = new HashMap<>();
  private final PreStopsRunning preStops = new PreStopsRunning(clock);
  private final CountDownLatch release = new CountDownLatch(1);
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final CallsInFlight calls =
      new CallsInFlight(
          new ForwardingRuntime(new FakeRuntime(clock)) {
            @Override
            public void stopContainer(String containerId, Duration grace) {
              try {
                release.await(20, TimeUnit.SECONDS); // a stop the engine never answers
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          },
          clock);
  private final List<String> events = new ArrayList<>();
  private final EventRecorder recorder =
      RecordingRecorder.to(
          o ->
              events.add(
                  o.involved().getName()
                      + " "
                      + o.type()
                      + " "
                      + o.reason()
                      + (o.annotations().containsKey(EventCorrelator.PROGRESS_OF)
                          ? " (repeat)"
                          : "")
                      + ": "
                      + o.message()));
  private final StuckTerminations watch =
      StuckTerminations.create(
          new StuckTerminations.Sources(
              () -> pods,
              uid -> Optional.ofNullable(statuses.get(uid)),
              calls,
              preStops,
              uid -> Optional.ofNullable(volumes.get(uid))),
          new StuckTerminations.Options(Duration.ofSeconds(30)),
          new Time(clock, d -> {}, schedulers),
          recorder);

  @AfterEach
  void close() {
    release.countDown();
    threads.shutdownNow();
  }

  @Test
  void aContainerThatHasNotExitedIsNamedWithItsPidAndStateOnceGracePlusStuckAfterHavePassed() {
    deleted(120);
    running("app", "c1", 4242);

    check(Duration.ofSeconds(149));
    assertThat(events).as("within grace + 30 s").isEmpty();
    assertThat(watch.report(UID)).isEmpty();

    check(Duration.ofSeconds(1));
    assertThat(events)
        .containsExactly(
            "web Warning TerminationStuck: Pod still not gone 2m30s after its deletion (grace"
                + " period 2m0s), held by: container \"app\" has not exited (PID 4242, running)");
  }

  @Test
  void aPreStopHookThatRunsIsNamedWithHowLongItHasRun() {
    deleted(10);
    running("app", "c1", 4242);
    check(Duration.ofSeconds(5));
    preStops.begin(UID, "app");

    check(Duration.ofSeconds(35));
    assertThat(events).hasSize(1);
    assertThat(events.get(0))
        .endsWith(
            "held by: container \"app\" has not exited (PID 4242, running);"
                + " preStop hook of container \"app\" running for 35s");
  }

  @Test
  void aVolumeThatWillNotTearDownIsNamedWithItsLastError() {
    deleted(30);
    check(Duration.ofSeconds(50));
    volumes.put(
        UID,
        new VolumeManager.TeardownFailure(
            "scratch",
            "umount: /x/volumes/kubernetes.io~empty-dir/scratch: target is busy.",
            clock.instant()));

    check(Duration.ofSeconds(10));
    assertThat(events)
        .containsExactly(
            "web Warning TerminationStuck: Pod still not gone 1m0s after its deletion (grace"
                + " period 30s), held by: volume \"scratch\" not torn down for 10s: umount:"
                + " /x/volumes/kubernetes.io~empty-dir/scratch: target is busy.");
  }

  @Test
  void aRuntimeCallThatHasNotReturnedIsNamedWithItsContainerAndAge() {
    deleted(30);
    running("app", "c1", 4242);
    threads.submit(() -> calls.stopContainer("c1", Duration.ofSeconds(30)));
    Awaitility.await().until(() -> calls.size() == 1);

    check(Duration.ofSeconds(60));
    assertThat(events).hasSize(1);
    assertThat(events.get(0))
        .endsWith(
            "held by: container \"app\" has not exited (PID 4242, running);"
                + " runtime call StopContainer for container \"app\" not returned after 1m0s");
  }

  @Test
  void aPodWhoseGraceRunsNormallyNeverGetsTheEvent() {
    deleted(30);
    running("app", "c1", 4242);
    check(Duration.ofSeconds(31)); // SIGKILL at the end of the grace period: it is gone
    statuses.remove(UID);
    pods.clear();
    check(Duration.ofSeconds(1));

    check(Duration.ofMinutes(10));
    assertThat(events).isEmpty();
    assertThat(watch.report(UID)).isEmpty();
  }

  @Test
  void aPodThatStaysStuckIsReportedAgainAtADoublingIntervalThatPatchesTheSameEvent() {
    deleted(30);
    running("app", "c1", 4242);
    List<Long> at = new ArrayList<>();
    for (int s = 1; s <= 400; s++) {
      int before = events.size();
      check(Duration.ofSeconds(1));
      if (events.size() > before) {
        at.add(Duration.between(T0, clock.instant()).toSeconds());
      }
    }
    // first at grace + 30 s, then after 30 s, 1 m, 2 m, ...
    assertThat(at).containsExactly(60L, 90L, 150L, 270L);
    assertThat(events.get(0)).doesNotContain("(repeat)");
    assertThat(events.subList(1, events.size())).allMatch(e -> e.contains("(repeat)"));
    assertThat(events.get(3)).contains("Pod still not gone 4m30s after its deletion");
  }

  @Test
  void podsShowsTheReportWithEachHolderAsJson() {
    deleted(30);
    running("app", "c1", 4242);
    check(Duration.ofSeconds(60));

    StuckTerminations.Report r = watch.report(UID).orElseThrow();
    assertThat(r.gracePeriodSeconds()).isEqualTo(30);
    assertThat(r.terminatingSeconds()).isEqualTo(60);
    assertThat(r.reports()).isEqualTo(1);
    assertThat(r.heldBy())
        .containsExactly(new Holder.ContainerNotExited("app", "c1", 4242, "running"));
    String json = ApiSerialization.SHARED.asJson(r);
    assertThat(json)
        .contains("\"kind\":\"container\"")
        .contains("\"pid\":4242")
        .contains("\"message\":\"container \\\"app\\\" has not exited (PID 4242, running)\"");
  }

  @Test
  void theStartedWatchChecksEverySecondOnItsScheduler() {
    watch.start();
    try {
      deleted(1);
      schedulers.advance(Duration.ofSeconds(1)); // sees the deletion
      schedulers.advance(Duration.ofSeconds(31));
      assertThat(events).hasSize(1);
      assertThat(events.get(0)).contains("held by: nothing on this node any more");
    } finally {
      watch.stop();
    }
  }

  private void check(Duration step) {
    clock.step(step);
    watch.runOnce();
  }

  private void deleted(long graceSeconds) {
    Pod p =
        new PodBuilder(TestPods.simple(UID, "web", "app"))
            .editMetadata()
            .withDeletionTimestamp(T0.plusSeconds(graceSeconds).toString())
            .withDeletionGracePeriodSeconds(graceSeconds)
            .endMetadata()
            .build();
    pods.add(p);
    watch.runOnce();
  }

  private void running(String name, String id, long pid) {
    statuses.put(
        UID,
        new PodStatus(
            new PodRef(UID, "web", "default"),
            List.of(),
            List.of(
                new ContainerStatus(
                    id,
                    name,
                    "s1",
                    ContainerState.RUNNING,
                    new ContainerStatus.Times(T0, T0, null),
                    new ContainerStatus.Exit(0, "", ""),
                    new ContainerStatus.Origin("img", "", "h", 0, Map.of()),
                    pid))));
  }
}
