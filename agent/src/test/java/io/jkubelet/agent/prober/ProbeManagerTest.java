package io.jkubelet.agent.prober;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The probe manager with workers run by hand: the timer is a fake that runs only when a test steps
 * it, and the workers' periods are an hour with a first delay of a whole period.
 */
@Timeout(20)
class ProbeManagerTest {
  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final FakeExecRunner exec = new FakeExecRunner();
  private final List<ProberEvent> published = new CopyOnWriteArrayList<>();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final EventRecorder recorder =
      (o, t, reason, msg) -> events.add(o.getFieldPath() + " " + t + " " + reason + ": " + msg);
  private final Map<String, PodStatus> statuses = new ConcurrentHashMap<>();
  private final ResultsManager results = new ResultsManager(published::add);
  private final ProbeManager manager =
      new ProbeManager(
          new ProbeManager.Deps(
              results,
              exec,
              uid -> Optional.ofNullable(statuses.get(uid)),
              recorder,
              clock,
              schedulers,
              () -> 1.0));

  @BeforeEach
  void start() {
    manager.start();
  }

  @AfterEach
  void stop() {
    manager.stop();
  }

  private static Pod pod(String uid, String probes) {
    return TestPods.parse(
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: p-%s, namespace: default, uid: %s}
        spec:
          containers:
          - name: app
            image: 'jkubelet/busybox:1.35'
            ports: [{name: http, containerPort: 8080}]
        %s
          - {name: plain, image: 'jkubelet/busybox:1.35'}
        """
            .formatted(uid, uid, probes.indent(4).stripTrailing()));
  }

  private static final String ALL_THREE =
      """
      startupProbe: {exec: {command: [test, -f, /started]}, periodSeconds: 3600, failureThreshold: 2}
      livenessProbe: {exec: {command: [test, -f, /alive]}, periodSeconds: 3600, failureThreshold: 2}
      readinessProbe: {exec: {command: [test, -f, /ready]}, periodSeconds: 3600}
      """;

  /** The status jkubelet would show: both containers running, {@code app} started as given. */
  private void running(String uid, boolean appStarted) {
    statuses.put(
        uid,
        new PodStatusBuilder()
            .withPhase("Running")
            .withPodIP("10.0.0.7")
            .withContainerStatuses(
                container("app", "docker://app-" + uid, appStarted),
                container("plain", "docker://plain-" + uid, true))
            .build());
  }

  private ContainerStatus container(String name, String id, boolean started) {
    return new ContainerStatusBuilder()
        .withName(name)
        .withContainerID(id)
        .withStarted(started)
        .withNewState()
        .withNewRunning()
        .withStartedAt(clock.instant().toString())
        .endRunning()
        .endState()
        .build();
  }

  private void probeAll() {
    manager.workers().forEach(ProbeWorker::probeOnce);
  }

  private List<String> calls() {
    List<String> out = new ArrayList<>();
    exec.calls().forEach(c -> out.add(String.join(" ", c.command())));
    return out;
  }

  @Test
  void oneWorkerPerProbeOfEachContainerAndRemovedWithThePod() {
    manager.addPod(pod("u1", ALL_THREE));
    manager.addPod(pod("u1", ALL_THREE)); // an update adds nothing
    manager.addPod(pod("u2", ALL_THREE));
    assertThat(manager.workerCount()).isEqualTo(6);

    running("u1", true);
    probeAll();
    assertThat(results.get("app-u1", ProbeType.READINESS)).isPresent();

    manager.removePod("u1");
    assertThat(manager.workerCount()).isEqualTo(3);
    assertThat(results.get("app-u1", ProbeType.READINESS)).as("forgotten").isEmpty();

    manager.cleanupPods(Set.of("u3"));
    assertThat(manager.workerCount()).isZero();
  }

  @Test
  void workersTickOnTheManagersTimerWhichStopCloses() {
    assertThat(schedulers.created()).containsExactly("prober-timer");
    manager.addPod(pod("u1", "readinessProbe: {exec: {command: [true]}, periodSeconds: 3600}"));
    running("u1", true);
    schedulers.advance(Duration.ofMinutes(59));
    assertThat(exec.calls()).as("the first delay is the whole period here").isEmpty();
    schedulers.advance(Duration.ofMinutes(1));
    await().atMost(Duration.ofSeconds(5)).until(() -> exec.calls().size() == 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> manager.health("u1").ready("app", "app-u1"));
    assertThat(manager.stats())
        .singleElement()
        .satisfies(st -> assertThat(st.attempts()).isEqualTo(1));

    manager.stop();
    assertThat(schedulers.pending()).as("the timer is closed").isZero();
    assertThat(manager.healthy().ok()).isFalse();
  }

  @Test
  void readyAndStartedFollowTheProbesAndContainersWithoutProbesAreBoth() {
    manager.addPod(pod("u1", ALL_THREE));
    ContainerHealth health = manager.health("u1");
    assertThat(health.ready("plain", "plain-u1")).isTrue();
    assertThat(health.started("plain", "plain-u1")).isTrue();
    assertThat(health.ready("app", "app-u1")).as("a probe that has not run").isFalse();
    assertThat(health.started("app", "app-u1")).isFalse();

    running("u1", false);
    exec.fail();
    probeAll();
    assertThat(calls())
        .as("only the startup probe runs before startup")
        .containsExactly("test -f /started");
    assertThat(health.started("app", "app-u1")).isFalse();

    exec.succeed();
    probeAll();
    assertThat(health.started("app", "app-u1")).isTrue();
    running("u1", true); // the sync that the change triggered shows it started
    probeAll();
    assertThat(health.ready("app", "app-u1")).isTrue();
    assertThat(calls()).hasSize(4).startsWith("test -f /started", "test -f /started");
    assertThat(calls().subList(2, 4)).containsExactlyInAnyOrder("test -f /alive", "test -f /ready");
  }

  @Test
  void aFailedLivenessProbeIsPublishedWithAnUnhealthyWarningForEachFailedAttempt() {
    manager.addPod(
        pod(
            "u1",
            "livenessProbe: {exec: {command: [cat, /alive]}, periodSeconds: 3600, failureThreshold: 2}"));
    running("u1", true);
    exec.setResult(new ExecResult(1, "cat: can't open '/alive': No such file", false));
    probeAll();
    assertThat(manager.failedProbe("app-u1")).isEmpty();
    probeAll();
    assertThat(manager.failedProbe("app-u1")).contains(ProbeType.LIVENESS);
    assertThat(events)
        .containsExactly(
            "spec.containers{app} Warning Unhealthy: Liveness probe failed: cat: can't open"
                + " '/alive': No such file (exit code 1)",
            "spec.containers{app} Warning Unhealthy: Liveness probe failed: cat: can't open"
                + " '/alive': No such file (exit code 1)");
    assertThat(published)
        .containsExactly(
            new ProberEvent.ResultChange(
                "u1", "app", "app-u1", ProbeType.LIVENESS, ProbeResult.SUCCESS),
            new ProberEvent.ResultChange(
                "u1", "app", "app-u1", ProbeType.LIVENESS, ProbeResult.FAILURE));
  }

  @Test
  void aFailedStartupProbeIsReportedAsSuch() {
    manager.addPod(
        pod(
            "u1",
            "startupProbe: {tcpSocket: {port: 1}, periodSeconds: 3600, failureThreshold: 1}"));
    running("u1", false);
    statuses.put("u1", new PodStatusBuilder(statuses.get("u1")).withPodIP("127.0.0.1").build());
    probeAll();
    assertThat(manager.failedProbe("app-u1")).contains(ProbeType.STARTUP);
    assertThat(events)
        .singleElement()
        .asString()
        .startsWith(
            "spec.containers{app} Warning Unhealthy: Startup probe failed: dial tcp 127.0.0.1:1:");
  }

  @Test
  void aBadDefinitionIsOneWarningAndNeverPassesNorKills() {
    String bad =
        """
        readinessProbe: {tcpSocket: {port: nosuch}}
        livenessProbe: {exec: {command: []}}
        startupProbe: {grpc: {port: 9090}}
        """;
    manager.addPod(pod("u1", bad));
    manager.addPod(pod("u1", bad));
    assertThat(manager.workerCount()).isZero();
    assertThat(events)
        .containsExactlyInAnyOrder(
            "spec.containers{app} Warning Unhealthy: Readiness probe errored: invalid probe:"
                + " tcpSocket.port: named port \"nosuch\" not found in the ports of container"
                + " \"app\"",
            "spec.containers{app} Warning Unhealthy: Liveness probe errored: invalid probe:"
                + " exec.command: must not be empty",
            "spec.containers{app} Warning Unhealthy: Startup probe errored: "
                + Probers.GRPC_UNSUPPORTED);
    ContainerHealth health = manager.health("u1");
    assertThat(health.ready("app", "app-u1")).isFalse();
    assertThat(health.started("app", "app-u1")).isFalse();
    assertThat(manager.failedProbe("app-u1")).isEmpty();
  }

  @Test
  void namedPortsResolveFromTheContainer() {
    manager.addPod(pod("u1", "readinessProbe: {tcpSocket: {port: http}, periodSeconds: 3600}"));
    assertThat(manager.workers())
        .singleElement()
        .satisfies(w -> assertThat(w.key().type()).isEqualTo(ProbeType.READINESS));
    assertThat(events).isEmpty();
  }

  @Test
  void afterARestartAContainerTheApiSawReadyStaysReadyUntilItsProbeSaysOtherwise() {
    manager.addPod(adopted("docker://app-u1"));
    assertThat(manager.health("u1").ready("app", "app-u1")).as("before any attempt").isTrue();
    running("u1", true);
    exec.fail();
    manager.workers().get(0).probeOnce();
    // The first attempt failed, but a failure threshold of three is not crossed by one.
    assertThat(manager.health("u1").ready("app", "app-u1")).isTrue();
    assertThat(published)
        .containsExactly(
            new ProberEvent.ResultChange(
                "u1", "app", "app-u1", ProbeType.READINESS, ProbeResult.SUCCESS));
    manager.workers().get(0).probeOnce();
    manager.workers().get(0).probeOnce();
    assertThat(manager.health("u1").ready("app", "app-u1")).isFalse();
  }

  @Test
  void aContainerThatChangedWhileJkubeletWasDownStartsUnready() {
    manager.addPod(adopted("docker://older"));
    running("u1", true);
    exec.fail();
    manager.workers().get(0).probeOnce();
    assertThat(manager.health("u1").ready("app", "app-u1")).isFalse();
  }

  @Test
  void anEditedProbeReplacesItsWorkerAndARemovedOneStops() {
    manager.addPod(pod("u1", ALL_THREE));
    ProbeWorker readiness =
        manager.workers().stream()
            .filter(w -> w.key().type() == ProbeType.READINESS)
            .findFirst()
            .orElseThrow();
    manager.addPod(
        pod(
            "u1",
            """
            livenessProbe: {exec: {command: [test, -f, /alive]}, periodSeconds: 3600, failureThreshold: 2}
            readinessProbe: {exec: {command: [test, -f, /ready2]}, periodSeconds: 3600}
            """));
    assertThat(manager.workerCount()).isEqualTo(2);
    assertThat(readiness.finished()).isTrue();
    running("u1", true);
    probeAll();
    assertThat(calls()).containsExactlyInAnyOrder("test -f /alive", "test -f /ready2");
  }

  /** A pod with a readiness probe, as the API server had it: its container ready. */
  private static Pod adopted(String readyContainerId) {
    Pod adopted = pod("u1", "readinessProbe: {exec: {command: [true]}, periodSeconds: 3600}");
    adopted.setStatus(
        new PodStatusBuilder()
            .withContainerStatuses(
                new ContainerStatusBuilder()
                    .withName("app")
                    .withContainerID(readyContainerId)
                    .withReady(true)
                    .build())
            .build());
    return adopted;
  }
}
