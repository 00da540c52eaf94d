package io.jkubelet.agent.pleg;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.runtime.ForwardingRuntime;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class GenericPlegTest {
  private final FakeClock clock = new FakeClock();
  private final FakeRuntime runtime = new FakeRuntime(clock, "pause");
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final PodCache cache = new PodCache();
  private final List<PodLifecycleEvent> events = new ArrayList<>();
  private final GenericPleg pleg = plegOn(runtime);
  private final PodRef pod = new PodRef("u1", "p", "default");

  /**
   * A PLEG on the runtime: relists every second, unhealthy after 3 minutes, events to {@code
   * events}.
   */
  private GenericPleg plegOn(Runtime r) {
    return new GenericPleg(
        r,
        cache,
        clock,
        schedulers,
        Duration.ofSeconds(1),
        Duration.ofMinutes(3),
        events::add,
        GenericPleg.RelistListener.NONE);
  }

  private String sandbox() {
    return runtime.runPodSandbox(
        SandboxConfig.builder(pod, "pause")
            .attempt(0)
            .hostname("p")
            .hostNetwork(false)
            .ports(List.of())
            .oomScoreAdj(0)
            .labels(Labels.podLabels(pod, "POD", Labels.TYPE_SANDBOX))
            .cpuShares(0)
            .build());
  }

  @Test
  void aRelistInspectsSeveralChangedPodsAtOnce() throws Exception {
    // As after a restart: every pod is new to the first relist.
    List<PodRef> pods = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      PodRef p = new PodRef("u" + i, "p" + i, "default");
      pods.add(p);
      runtime.runPodSandbox(
          SandboxConfig.builder(p, "pause")
              .attempt(0)
              .hostname(p.name())
              .hostNetwork(false)
              .ports(List.of())
              .oomScoreAdj(0)
              .labels(Labels.podLabels(p, "POD", Labels.TYPE_SANDBOX))
              .cpuShares(0)
              .build());
    }
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    CountDownLatch second = new CountDownLatch(2);
    Runtime slow =
        (Runtime)
            Proxy.newProxyInstance(
                Runtime.class.getClassLoader(),
                new Class<?>[] {Runtime.class},
                (proxy, method, args) -> {
                  if (!method.getName().equals("podStatus")) {
                    return method.invoke(runtime, args);
                  }
                  most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                  second.countDown();
                  second.await(5, TimeUnit.SECONDS); // a slow engine, until a second call comes
                  try {
                    return method.invoke(runtime, args);
                  } finally {
                    inFlight.decrementAndGet();
                  }
                });
    GenericPleg parallel = plegOn(slow);

    parallel.relist();

    assertThat(most.get()).as("inspections at once").isBetween(2, RelistInspects.PARALLELISM);
    assertThat(events)
        .extracting(PodLifecycleEvent::podUid)
        .containsExactlyInAnyOrderElementsOf(pods.stream().map(PodRef::uid).toList());
    pods.forEach(p -> assertThat(cache.get(p.uid())).isPresent());
  }

  @Test
  void turnsContainerChangesIntoEventsAndUpdatesTheCache() {
    String id = sandbox();
    pleg.relist();
    assertThat(events).containsExactly(new PodLifecycleEvent.ContainerStarted("u1", id));
    assertThat(cache.get("u1").orElseThrow().status().sandboxes()).hasSize(1);

    events.clear();
    pleg.relist();
    assertThat(events).as("nothing changed").isEmpty();

    runtime.exit(id, 0, "");
    pleg.relist();
    assertThat(events).containsExactly(new PodLifecycleEvent.ContainerDied("u1", id));
    assertThat(cache.get("u1").orElseThrow().status().sandboxes().get(0).ready()).isFalse();

    events.clear();
    runtime.removeContainer(id);
    pleg.relist();
    assertThat(events).containsExactly(new PodLifecycleEvent.ContainerRemoved("u1", id));
  }

  @Test
  void theFakeClockStepsTheRelistsAndARequestRelistsAtOnce() {
    // A runtime without an event stream: only the period and explicit requests relist.
    GenericPleg pleg =
        plegOn(
            new ForwardingRuntime(runtime) {
              @Override
              public AutoCloseable watchContainerEvents(Runnable onChange) {
                return () -> {};
              }
            });
    pleg.start();
    try {
      assertThat(schedulers.created()).containsExactly("pleg");
      schedulers.runDue();
      assertThat(pleg.healthy().ok()).as("the first relist runs at start").isTrue();
      String id = sandbox();
      schedulers.advance(Duration.ofMillis(999));
      assertThat(events).as("not yet due").isEmpty();
      schedulers.advance(Duration.ofMillis(1));
      assertThat(events).containsExactly(new PodLifecycleEvent.ContainerStarted("u1", id));

      events.clear();
      runtime.exit(id, 0, "");
      pleg.requestRelist();
      schedulers.runDue();
      assertThat(events)
          .as("a requested relist does not wait for the period")
          .containsExactly(new PodLifecycleEvent.ContainerDied("u1", id));
    } finally {
      pleg.stop();
    }
    assertThat(schedulers.pending()).as("stop closes the scheduler").isZero();
  }

  @Test
  void theRuntimesEventsRelistAtOnceAndStopWithThePleg() {
    pleg.start();
    try {
      schedulers.runDue();
      String id = sandbox();
      schedulers.runDue();
      assertThat(events)
          .as("a sandbox that starts is seen without waiting for the period")
          .containsExactly(new PodLifecycleEvent.ContainerStarted("u1", id));

      events.clear();
      runtime.exit(id, 0, "");
      schedulers.runDue();
      assertThat(events).containsExactly(new PodLifecycleEvent.ContainerDied("u1", id));
    } finally {
      pleg.stop();
    }
    events.clear();
    runtime.removeContainer(runtime.all().get(0).id);
    schedulers.runDue();
    assertThat(events).as("no relist after stop").isEmpty();
    assertThat(schedulers.pending()).isZero();
  }

  @Test
  void doesNotInspectAPodThatAWorkerObservedAfterTheListing() {
    String id = sandbox();
    // A worker re-inspected the pod after acting on it, later than this relist's listing.
    cache.set(pod, runtime.podStatus(pod), null, clock.instant().plusMillis(5));
    runtime.clearCalls();
    pleg.relist();
    assertThat(events).containsExactly(new PodLifecycleEvent.ContainerStarted("u1", id));
    assertThat(runtime.calls()).containsExactly("listContainers ");
  }

  @Test
  void ignoresContainersJkubeletDidNotCreate() {
    runtime.addForeign("someone-elses");
    pleg.relist();
    assertThat(events).isEmpty();
  }

  @Test
  void isUnhealthyWhenNoRelistSucceededForThreeMinutes() {
    pleg.relist();
    assertThat(pleg.healthy().ok()).isTrue();
    runtime.setDown(true);
    clock.step(Duration.ofMinutes(2));
    try {
      pleg.relist();
    } catch (RuntimeException expected) {
      // the runtime is down
    }
    assertThat(pleg.healthy().ok()).isTrue();
    clock.step(Duration.ofMinutes(1).plusSeconds(1));
    assertThat(pleg.healthy().ok()).isFalse();
    assertThat(pleg.healthy().message()).contains("PLEG is not healthy");
  }

  @Test
  void aWorkerWaitingForANewerStatusWakesOnRelist() throws Exception {
    var before = clock.instant();
    clock.step(Duration.ofSeconds(1));
    Thread t = Thread.ofVirtual().start(pleg::relist);
    var entry = cache.getNewerThan(pod, before, Duration.ofSeconds(5));
    t.join();
    assertThat(entry).isPresent();
    assertThat(cache.getNewerThan(pod, clock.instant(), Duration.ofMillis(10)))
        .as("nothing newer yet")
        .isEmpty();
  }

  @Test
  void anOlderObservationNeverOverwritesANewerOne() {
    var status = runtime.podStatus(pod);
    cache.set(pod, status, null, clock.instant().plusSeconds(5));
    cache.set(
        pod,
        io.jkubelet.agent.runtime.PodStatus.empty(pod),
        new RuntimeException("stale"),
        clock.instant());
    assertThat(cache.get("u1").orElseThrow().error()).isNull();
  }
}
