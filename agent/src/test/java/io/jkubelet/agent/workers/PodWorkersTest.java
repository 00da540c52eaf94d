package io.jkubelet.agent.workers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class PodWorkersTest {
  private final FakeClock clock = new FakeClock();
  private final WorkQueue queue = new WorkQueue(clock);
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final List<String> synced = new CopyOnWriteArrayList<>();
  private final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();
  private final AtomicInteger concurrent = new AtomicInteger();
  private final AtomicInteger maxConcurrentPerPod = new AtomicInteger();

  private final PodSyncFn fn =
      (work, last) -> {
        int now = concurrent.incrementAndGet();
        maxConcurrentPerPod.accumulateAndGet(now, Math::max);
        try {
          CountDownLatch gate = gates.get(work.uid());
          if (gate != null) {
            gate.await(10, TimeUnit.SECONDS);
          }
          synced.add(work.uid() + ":" + work.type() + ":" + work.pod().getMetadata().getName());
          return new SyncResult(clock.instant(), null);
        } finally {
          concurrent.decrementAndGet();
        }
      };
  private final PodWorkers workers =
      new PodWorkers(
          new PodWorkers.Options(
              fn,
              queue,
              clock,
              Duration.ofMinutes(1),
              Duration.ofSeconds(10),
              () -> 0.0,
              executor));

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  private static Pod pod(String uid, String name) {
    return TestPods.simple(uid, name, "c");
  }

  @Test
  void oneSyncAtATimePerPodAndTheLatestPendingUpdateWins() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    gates.put("u1", gate);
    workers.update(UpdatePodOptions.of(pod("u1", "v1"), WorkType.SYNC));
    await().until(() -> concurrent.get() == 1);
    workers.update(UpdatePodOptions.of(pod("u1", "v2"), WorkType.UPDATE));
    workers.update(UpdatePodOptions.of(pod("u1", "v3"), WorkType.UPDATE));
    gate.countDown();
    assertThat(workers.awaitIdle(Duration.ofSeconds(5))).isTrue();

    assertThat(synced).containsExactly("u1:SYNC:v1", "u1:UPDATE:v3");
    assertThat(maxConcurrentPerPod.get()).isEqualTo(1);
  }

  @Test
  void aPendingKillIsNeverOverwritten() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    gates.put("u1", gate);
    workers.update(UpdatePodOptions.of(pod("u1", "v1"), WorkType.SYNC));
    await().until(() -> concurrent.get() == 1);
    workers.update(new UpdatePodOptions(pod("u1", "v1"), WorkType.KILL, null));
    workers.update(UpdatePodOptions.of(pod("u1", "v2"), WorkType.UPDATE));
    workers.update(UpdatePodOptions.of(pod("u1", "v3"), WorkType.SYNC));
    gate.countDown();
    assertThat(workers.awaitIdle(Duration.ofSeconds(5))).isTrue();

    assertThat(synced).containsExactly("u1:SYNC:v1", "u1:KILL:v1");
    assertThat(workers.state("u1")).isEqualTo(PodWorkers.PodState.TERMINATED);
  }

  @Test
  void awaitTerminatedWaitsForTheKillsOfThesePodsOnly() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    gates.put("u1", gate);
    gates.put("u2", new CountDownLatch(1)); // u2's sync never ends in this test
    workers.update(UpdatePodOptions.of(pod("u2", "b"), WorkType.CREATE));
    workers.update(new UpdatePodOptions(pod("u1", "a"), WorkType.KILL, null));
    await().until(() -> concurrent.get() == 2);

    assertThat(workers.awaitTerminated(List.of("u1"), Duration.ofMillis(50))).isFalse();
    gate.countDown();

    assertThat(workers.awaitTerminated(List.of("u1", "unknown"), Duration.ofSeconds(5))).isTrue();
    assertThat(workers.state("u1")).isEqualTo(PodWorkers.PodState.TERMINATED);
    gates.get("u2").countDown();
  }

  @Test
  void differentPodsSyncInParallel() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    gates.put("u1", gate);
    gates.put("u2", gate);
    workers.update(UpdatePodOptions.of(pod("u1", "a"), WorkType.CREATE));
    workers.update(UpdatePodOptions.of(pod("u2", "b"), WorkType.CREATE));
    await().until(() -> concurrent.get() == 2);
    gate.countDown();
    assertThat(workers.awaitIdle(Duration.ofSeconds(5))).isTrue();
  }

  @Test
  void aCreateAfterAKillRunsOnceTheKillIsDone() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    gates.put("u1", gate);
    workers.update(new UpdatePodOptions(pod("u1", "a"), WorkType.KILL, null));
    await().until(() -> concurrent.get() == 1);
    workers.update(UpdatePodOptions.of(pod("u1", "a"), WorkType.CREATE));
    gate.countDown();
    assertThat(workers.awaitIdle(Duration.ofSeconds(5))).isTrue();
    assertThat(synced).containsExactly("u1:KILL:a", "u1:CREATE:a");
    assertThat(workers.state("u1")).isEqualTo(PodWorkers.PodState.SYNCING);
  }

  @Test
  void aSyncedPodIsDueAgainAfterTheResyncIntervalAndAFailedOneAfterTheBackoff() throws Exception {
    PodWorkers failing =
        new PodWorkers(
            new PodWorkers.Options(
                (w, l) -> {
                  if (w.uid().equals("bad")) {
                    throw new IllegalStateException("boom");
                  }
                  return new SyncResult(clock.instant(), null);
                },
                queue,
                clock,
                Duration.ofMinutes(1),
                Duration.ofSeconds(10),
                () -> 0.0,
                executor));
    failing.update(UpdatePodOptions.of(pod("good", "a"), WorkType.CREATE));
    failing.update(UpdatePodOptions.of(pod("bad", "b"), WorkType.CREATE));
    assertThat(failing.awaitIdle(Duration.ofSeconds(5))).isTrue();

    assertThat(queue.getWork()).isEmpty();
    clock.step(Duration.ofSeconds(10));
    assertThat(queue.getWork()).containsExactly("bad");
    clock.step(Duration.ofSeconds(50));
    assertThat(queue.getWork()).containsExactly("good");
  }

  @Test
  void aSyncCanAskToBeRequeuedSooner() throws Exception {
    PodWorkers w =
        new PodWorkers(
            new PodWorkers.Options(
                (work, l) -> new SyncResult(Instant.EPOCH, Duration.ofSeconds(3)),
                queue,
                clock,
                Duration.ofMinutes(1),
                Duration.ofSeconds(10),
                () -> 0.0,
                executor));
    w.update(UpdatePodOptions.of(pod("u1", "a"), WorkType.CREATE));
    assertThat(w.awaitIdle(Duration.ofSeconds(5))).isTrue();
    clock.step(Duration.ofSeconds(3));
    assertThat(queue.getWork()).containsExactly("u1");
  }
}
