package io.jkubelet.agent.loop;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.pleg.PodLifecycleEvent;
import io.jkubelet.agent.podconfig.PodUpdate;
import io.jkubelet.agent.podconfig.Source;
import io.jkubelet.agent.prober.ProbeResult;
import io.jkubelet.agent.prober.ProbeType;
import io.jkubelet.agent.prober.ProberEvent;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Time;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SyncLoopTest {
  private final BlockingQueue<String> calls = new LinkedBlockingQueue<>();
  private final Pod p1 = TestPods.simple("u1", "p1", "c");
  private final Pod p2 = TestPods.simple("u2", "p2", "c");
  private final Map<String, Pod> desired = Map.of("u1", p1, "u2", p2);
  private final AtomicBoolean sourcesSeen = new AtomicBoolean();
  private final AtomicInteger pendingUpdates = new AtomicInteger();
  private final SourcesReady sourcesReady = new SourcesReady(sourcesSeen::get, pendingUpdates::get);
  private List<Pod> due = List.of();

  private final SyncHandler handler =
      new SyncHandler() {
        public void handlePodAdditions(List<Pod> pods) {
          calls.add("add " + names(pods));
        }

        public void handlePodUpdates(List<Pod> pods) {
          calls.add("update " + names(pods));
        }

        public void handlePodRemoves(List<Pod> pods) {
          calls.add("remove " + names(pods));
        }

        public void handlePodReconcile(List<Pod> pods) {
          calls.add("reconcile " + names(pods));
        }

        public void handlePodSyncs(List<Pod> pods) {
          calls.add("sync " + names(pods));
        }

        public void cleanUpContainersInPod(String podUid, String containerId) {
          calls.add("cleanup " + podUid + " " + containerId);
        }

        public void handlePodCleanups() {
          calls.add("housekeeping");
        }
      };

  private static String names(List<Pod> pods) {
    return pods.stream().map(p -> p.getMetadata().getName()).toList().toString();
  }

  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final Select select = new Select();
  private final SyncLoop loop =
      new SyncLoop(
          handler,
          new SyncLoop.Pods(uid -> Optional.ofNullable(desired.get(uid)), () -> due, sourcesReady),
          select,
          new SyncLoop.Ticks(
              select.channel("sync", 1, LoopInput.SyncTick::new),
              select.channel("hk", 1, LoopInput.HousekeepingTick::new),
              Duration.ofSeconds(1),
              Duration.ofSeconds(2)),
          new Time(clock, clock::step, schedulers));

  @Test
  void configUpdatesGoToTheMatchingHandler() {
    loop.runOnce(new LoopInput.Config(new PodUpdate(PodUpdate.Op.ADD, List.of(p1), Source.FILE)));
    loop.runOnce(
        new LoopInput.Config(new PodUpdate(PodUpdate.Op.UPDATE, List.of(p1), Source.FILE)));
    loop.runOnce(new LoopInput.Config(new PodUpdate(PodUpdate.Op.DELETE, List.of(p2), Source.API)));
    loop.runOnce(
        new LoopInput.Config(new PodUpdate(PodUpdate.Op.REMOVE, List.of(p1), Source.FILE)));
    loop.runOnce(
        new LoopInput.Config(new PodUpdate(PodUpdate.Op.RECONCILE, List.of(p2), Source.API)));
    assertThat(calls)
        .containsExactly("add [p1]", "update [p1]", "update [p2]", "remove [p1]", "reconcile [p2]");
  }

  @Test
  void aPlegEventSyncsItsPodAndADeathAlsoCleansUp() {
    loop.runOnce(new LoopInput.Pleg(new PodLifecycleEvent.ContainerStarted("u1", "c1")));
    loop.runOnce(new LoopInput.Pleg(new PodLifecycleEvent.ContainerDied("u2", "c2")));
    loop.runOnce(new LoopInput.Pleg(new PodLifecycleEvent.ContainerRemoved("u1", "c1")));
    loop.runOnce(new LoopInput.Pleg(new PodLifecycleEvent.ContainerStarted("unknown", "c3")));
    assertThat(calls).containsExactly("sync [p1]", "sync [p2]", "cleanup u2 c2");
  }

  @Test
  void everyProbeTransitionSyncsItsPodAtOnce() {
    for (ProbeType type : ProbeType.values()) {
      loop.runOnce(
          new LoopInput.Probe(
              new ProberEvent.ResultChange("u1", "c", "id1", type, ProbeResult.SUCCESS)));
    }
    loop.runOnce(
        new LoopInput.Probe(
            new ProberEvent.ResultChange(
                "gone", "c", "id9", ProbeType.LIVENESS, ProbeResult.FAILURE)));
    assertThat(calls).containsExactly("sync [p1]", "sync [p1]", "sync [p1]");
  }

  @Test
  void theSyncTickSyncsThePodsThatAreDue() {
    loop.runOnce(new LoopInput.SyncTick(Instant.EPOCH));
    due = List.of(p2, p1);
    loop.runOnce(new LoopInput.SyncTick(Instant.EPOCH));
    assertThat(calls).containsExactly("sync [p2, p1]");
  }

  @Test
  void housekeepingWaitsUntilEverySourceHasSpoken() {
    loop.runOnce(new LoopInput.HousekeepingTick(Instant.EPOCH));
    assertThat(calls).isEmpty();
    assertThat(sourcesReady.getAsBoolean()).isFalse();
    sourcesSeen.set(true);
    loop.runOnce(new LoopInput.HousekeepingTick(Instant.EPOCH));
    assertThat(calls).containsExactly("housekeeping");
    assertThat(sourcesReady.getAsBoolean()).as("housekeeping's and GC's view").isTrue();
  }

  @Test
  void housekeepingWaitsUntilTheLoopHasHandledTheSourcesFirstSets() {
    // Every source has been merged, but the ADD waits in the channel behind the tick: housekeeping
    // now would kill the pods to adopt as not desired (the bed's restart, 29 Nov).
    sourcesSeen.set(true);
    pendingUpdates.set(1);
    loop.runOnce(new LoopInput.HousekeepingTick(Instant.EPOCH));
    assertThat(calls).isEmpty();
    assertThat(sourcesReady.getAsBoolean()).isFalse();

    pendingUpdates.set(0);
    loop.runOnce(new LoopInput.Config(new PodUpdate(PodUpdate.Op.ADD, List.of(p1), Source.FILE)));
    loop.runOnce(new LoopInput.HousekeepingTick(Instant.EPOCH));
    assertThat(calls).containsExactly("add [p1]", "housekeeping");

    pendingUpdates.set(5); // later updates in the channel hold nothing up: set once
    loop.runOnce(new LoopInput.HousekeepingTick(Instant.EPOCH));
    assertThat(calls).containsExactly("add [p1]", "housekeeping", "housekeeping");
  }

  @Test
  void theFakeClockStepsTheSyncAndHousekeepingTickers() throws Exception {
    due = List.of(p1);
    sourcesSeen.set(true);
    loop.start();
    try {
      assertThat(schedulers.created()).containsExactly("sync-loop-ticker");
      schedulers.advance(Duration.ofSeconds(1));
      assertThat(calls.poll(5, TimeUnit.SECONDS)).isEqualTo("sync [p1]");
      schedulers.advance(Duration.ofSeconds(1));
      List<String> both = List.of(calls.poll(5, TimeUnit.SECONDS), calls.poll(5, TimeUnit.SECONDS));
      assertThat(both)
          .as("at 2 s both tickers fire")
          .containsExactlyInAnyOrder("sync [p1]", "housekeeping");
      assertThat(loop.healthy().ok()).isTrue();
    } finally {
      loop.stop();
    }
    assertThat(schedulers.pending()).as("stop closes the tickers").isZero();
    schedulers.advance(Duration.ofSeconds(10));
    assertThat(calls).isEmpty();
  }

  @Test
  void theSelectTakesFromReadyChannelsInTurn() throws Exception {
    Select s = new Select();
    Select.Channel<PodUpdate> config = s.channel("config", 10, LoopInput.Config::new);
    Select.Channel<Instant> ticks = s.channel("tick", 1, LoopInput.SyncTick::new);
    for (int i = 0; i < 3; i++) {
      config.offer(new PodUpdate(PodUpdate.Op.ADD, List.of(p1), Source.FILE));
    }
    assertThat(ticks.offer(Instant.EPOCH)).isTrue();
    assertThat(ticks.offer(Instant.EPOCH))
        .as("a full tick channel drops, like a Go ticker")
        .isFalse();
    List<Class<?>> order = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      order.add(s.next(Duration.ofSeconds(1)).orElseThrow().getClass());
    }
    assertThat(order.get(1))
        .as("the tick is not starved by the config backlog")
        .isEqualTo(LoopInput.SyncTick.class);
    assertThat(s.next(Duration.ofMillis(10))).isEmpty();
  }
}
