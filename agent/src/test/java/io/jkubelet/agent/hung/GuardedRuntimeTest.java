package io.jkubelet.agent.hung;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.jkubelet.agent.pleg.GenericPleg;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.pleg.PodLifecycleEvent;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ForwardingRuntime;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link GuardedRuntime} over a {@link FakeRuntime} whose calls for one container hang until
 * released, on a fake clock: the hung container keeps its last known state with a message and its
 * pod gets told, the other containers and pods go on, a hung call is not sent again, and the PLEG
 * stays healthy.
 */
@Timeout(30)
class GuardedRuntimeTest {
  private static final Duration REQUEST = Duration.ofMinutes(2);

  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final FakeRuntime fake = new FakeRuntime(clock, "pause");
  private final HangingRuntime engine = new HangingRuntime(fake);
  private final List<String> heard = new CopyOnWriteArrayList<>();
  private final GuardedRuntime runtime =
      GuardedRuntime.create(
          engine,
          GuardedRuntime.Options.of(REQUEST),
          clock,
          schedulers,
          new GuardedRuntime.Listener() {
            @Override
            public void hung(HungCall call) {
              heard.add("hung " + call.message(clock.instant()));
            }

            @Override
            public void returned(HungCall call, Duration took) {
              heard.add("returned " + call.what());
            }
          });
  private final PodRef pod = new PodRef("u1", "web", "default");
  private final PodRef other = new PodRef("u2", "db", "default");

  @AfterEach
  void release() {
    engine.release.countDown();
    runtime.stop();
  }

  @Test
  void aHungInspectKeepsTheContainersLastKnownStateAndTheRestGoesOn() throws Exception {
    runtime.start();
    String app = run(pod, "app");
    String side = run(pod, "side");
    runtime.listContainers();
    assertThat(runtime.podStatus(pod).latest("app")).get().extracting(ContainerStatus::running);

    engine.hang(app);
    fake.stopContainer(side, Duration.ZERO); // the engine answers for it: its exit shows
    CompletableFuture<PodStatus> status =
        CompletableFuture.supplyAsync(() -> runtime.podStatus(pod));
    await().until(() -> engine.entered.getCount() == 0);
    assertThat(status).isNotDone();
    schedulers.advance(GuardedRuntime.INSPECT_TIMEOUT);

    PodStatus s = status.get(5, TimeUnit.SECONDS);
    ContainerStatus kept = s.latest("app").orElseThrow();
    assertThat(kept.running()).isTrue();
    assertThat(kept.message())
        .isEqualTo(
            "ContainerStatus of container \"app\" ("
                + app.substring(0, 12)
                + ") has not returned after 10s; its last known state is kept");
    assertThat(s.latest("side").orElseThrow().exited()).isTrue();
    assertThat(heard)
        .containsExactly(
            "hung ContainerStatus of container \"app\" ("
                + app.substring(0, 12)
                + ") has not returned after 10s");
    assertThat(runtime.hung()).extracting(HungCall::pod).containsExactly(pod);
    assertThat(runtime.hungOf(pod.uid()))
        .as("as /pods shows it on the pod")
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.call()).isEqualTo("ContainerStatus");
              assertThat(r.container()).isEqualTo("app");
              assertThat(r.containerId()).isEqualTo(app);
              assertThat(r.message())
                  .isEqualTo(
                      "ContainerStatus of container \"app\" ("
                          + app.substring(0, 12)
                          + ") has not returned after 10s");
            });
    assertThat(runtime.hungOf(other.uid())).isEmpty();

    // Again while it hangs: not sent to the engine a second time, and at once.
    PodStatus again = runtime.podStatus(pod);
    assertThat(again.latest("app").orElseThrow().message()).contains("(not sent again)");
    assertThat(engine.hungCalls.get()).isEqualTo(1);
    // Another pod's containers are inspected as ever.
    String db = run(other, "db");
    assertThat(runtime.podStatus(other).latest("db").orElseThrow().id()).isEqualTo(db);

    engine.release.countDown();
    await()
        .until(
            () ->
                heard.contains(
                    "returned ContainerStatus of container \"app\" ("
                        + app.substring(0, 12)
                        + ")"));
    assertThat(runtime.hung()).isEmpty();
    assertThat(runtime.hungOf(pod.uid())).isEmpty();
    assertThat(runtime.podStatus(pod).latest("app").orElseThrow().message()).isEmpty();
  }

  @Test
  void aContainerNeverInspectedFailsItsPodsInspectRatherThanBeLeftOut() {
    runtime.start();
    String app = run(pod, "app");
    engine.hang(app);
    CompletableFuture<PodStatus> status =
        CompletableFuture.supplyAsync(() -> runtime.podStatus(pod));
    await().until(() -> engine.entered.getCount() == 0);
    schedulers.advance(GuardedRuntime.INSPECT_TIMEOUT);
    assertThat(status).as("nothing to keep: it waits as any call does").isNotDone();
    schedulers.advance(REQUEST.minus(GuardedRuntime.INSPECT_TIMEOUT));
    assertThatThrownBy(status::join)
        .hasCauseInstanceOf(RuntimeError.class)
        .hasMessageContaining("has not returned after 2m");
  }

  @Test
  void aSecondCallerJoinsTheCallInFlightAndBothGetItsAnswer() throws Exception {
    runtime.start();
    String app = run(pod, "app"); // never inspected: both wait up to the request timeout
    engine.hang(app);
    CompletableFuture<PodStatus> first =
        CompletableFuture.supplyAsync(() -> runtime.podStatus(pod));
    await().until(() -> engine.entered.getCount() == 0);
    int deadlines = schedulers.pending();
    CompletableFuture<PodStatus> second = // a worker's inspect of the same container
        CompletableFuture.supplyAsync(() -> runtime.podStatus(pod, List.of(app)));
    await().alias("the second caller's own deadline").until(() -> schedulers.pending() > deadlines);
    schedulers.advance(Duration.ofSeconds(30)); // a slow engine, not a hung one
    assertThat(first).isNotDone();
    assertThat(second).isNotDone();

    engine.release.countDown();
    assertThat(first.get(5, TimeUnit.SECONDS).latest("app").orElseThrow().running()).isTrue();
    assertThat(second.get(5, TimeUnit.SECONDS).latest("app").orElseThrow().running()).isTrue();
    assertThat(engine.hungCalls.get()).as("sent to the engine once").isEqualTo(1);
    assertThat(heard).isEmpty();
  }

  @Test
  void aSecondStopWithItsOwnGraceIsSentNotJoined() throws Exception {
    runtime.start();
    String app = run(pod, "app");
    engine.hang(app);
    CompletableFuture<Void> graceful =
        CompletableFuture.runAsync(() -> runtime.stopContainer(app, Duration.ofSeconds(30)));
    await().until(() -> engine.entered.getCount() == 0);
    CompletableFuture<Void> forced = // a deletion with --grace-period=0 while the first runs
        CompletableFuture.runAsync(() -> runtime.stopContainer(app, Duration.ZERO));
    await().alias("the forced stop reaches the engine").until(() -> engine.hungCalls.get() == 2);
    engine.release.countDown();
    graceful.get(5, TimeUnit.SECONDS);
    forced.get(5, TimeUnit.SECONDS);
  }

  @Test
  void aHungStopFailsAfterItsGracePlusTheRequestTimeoutAndIsNotSentAgain() throws Exception {
    runtime.start();
    String app = run(pod, "app");
    String db = run(other, "db");
    runtime.listContainers();
    runtime.podStatus(pod);
    engine.hang(app);
    CompletableFuture<Void> stop =
        CompletableFuture.runAsync(() -> runtime.stopContainer(app, Duration.ofSeconds(30)));
    await().until(() -> engine.entered.getCount() == 0);
    schedulers.advance(REQUEST); // not yet: the grace period comes first
    assertThat(stop).isNotDone();
    runtime.stopContainer(db, Duration.ofSeconds(30)); // another pod's stop goes through
    assertThat(fake.podStatus(other).latest("db").orElseThrow().exited()).isTrue();

    schedulers.advance(Duration.ofSeconds(30));
    assertThatThrownBy(() -> stop.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(RuntimeError.class)
        .hasMessageContaining(
            "StopContainer of container \"app\" ("
                + app.substring(0, 12)
                + ") has not returned after 2m30s");
    assertThatThrownBy(() -> runtime.stopContainer(app, Duration.ofSeconds(30)))
        .hasMessageContaining("(not sent again)");
    assertThat(engine.hungCalls.get()).isEqualTo(1);
  }

  @Test
  void thePlegStaysHealthyAndRelistsOtherPodsWhileOneContainerHangs() {
    runtime.start();
    PodCache cache = new PodCache();
    List<PodLifecycleEvent> events = new CopyOnWriteArrayList<>();
    GenericPleg pleg =
        new GenericPleg(
            runtime,
            cache,
            clock,
            schedulers,
            Duration.ofSeconds(1),
            Duration.ofMinutes(3),
            events::add,
            GenericPleg.RelistListener.NONE);
    String app = run(pod, "app");
    pleg.relist();
    engine.hang(app);
    fake.stopContainer(app, Duration.ZERO); // the relist sees it exit, and its inspect hangs
    CompletableFuture<Void> relist = CompletableFuture.runAsync(pleg::relist);
    await().until(() -> engine.entered.getCount() == 0);
    schedulers.advance(GuardedRuntime.INSPECT_TIMEOUT);
    relist.join();
    assertThat(cache.get(pod.uid()).orElseThrow().status().latest("app").orElseThrow().message())
        .contains("has not returned");

    String db = run(other, "db");
    for (int i = 0; i < 200; i++) { // over the PLEG's threshold of 3 min
      clock.step(Duration.ofSeconds(1));
      pleg.relist();
    }
    assertThat(pleg.healthy().ok()).isTrue();
    assertThat(cache.get(other.uid()).orElseThrow().status().latest("db").orElseThrow().id())
        .isEqualTo(db);
    assertThat(engine.hungCalls.get()).isEqualTo(1);
  }

  @Test
  void thePlegSaysUpstreamsWordsWhenTheEngineDoesNotList() {
    runtime.start();
    GenericPleg pleg =
        new GenericPleg(
            runtime,
            new PodCache(),
            clock,
            schedulers,
            Duration.ofSeconds(1),
            Duration.ofMinutes(3),
            e -> true,
            GenericPleg.RelistListener.NONE);
    pleg.relist();
    clock.step(Duration.ofMinutes(3).plusSeconds(5));
    assertThat(pleg.healthy().message())
        .isEqualTo("PLEG is not healthy: pleg was last seen active 3m5s ago; threshold is 3m0s");
  }

  /** A running container of the pod, in a sandbox of its own; returns its id. */
  private String run(PodRef p, String name) {
    String sandbox =
        fake.runPodSandbox(
            SandboxConfig.builder(p, "pause")
                .attempt(0)
                .hostname(p.name())
                .hostNetwork(false)
                .ports(List.of())
                .oomScoreAdj(0)
                .labels(Labels.podLabels(p, "POD", Labels.TYPE_SANDBOX))
                .cpuShares(0)
                .build());
    String id =
        fake.createContainer(
            sandbox,
            ContainerConfig.builder(Labels.containerName(p, name, 0), "pause")
                .entrypoint(List.of("sleep"))
                .cmd(List.of("1d"))
                .env(List.of())
                .workingDir("")
                .mounts(List.of())
                .resources(ContainerConfig.Resources.NONE)
                .labels(Labels.podLabels(p, name, Labels.TYPE_CONTAINER))
                .stdio(ContainerConfig.Stdio.NONE)
                .build());
    fake.startContainer(id);
    return id;
  }

  /** The engine, whose calls for one container hang until released. */
  private static final class HangingRuntime extends ForwardingRuntime {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger hungCalls = new AtomicInteger();
    private volatile String hung = "";

    HangingRuntime(Runtime delegate) {
      super(delegate);
    }

    void hang(String id) {
      hung = id;
    }

    private void maybeHang(String id) {
      if (id.equals(hung) && release.getCount() > 0) {
        hungCalls.incrementAndGet();
        entered.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public PodStatus podStatus(PodRef pod, List<String> containerIds) {
      containerIds.forEach(this::maybeHang);
      PodStatus all = delegate.podStatus(pod);
      return new PodStatus(
          pod,
          all.sandboxes().stream().filter(s -> containerIds.contains(s.id())).toList(),
          all.containers().stream().filter(c -> containerIds.contains(c.id())).toList());
    }

    @Override
    public void stopContainer(String containerId, Duration grace) {
      maybeHang(containerId);
      delegate.stopContainer(containerId, grace);
    }
  }
}
