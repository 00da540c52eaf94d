package io.jkubelet.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.cm.ContainerManager;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.fake.FakeContainer;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.config.KubeletConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole agent on a {@link FakeRuntime} and a {@link FakeClock}: what {@code /pods} shows as
 * containers crash, and how the crash-loop backoff grows on the injected clock.
 */
@Timeout(60)
class KubeletTest {
  @TempDir Path tmp;
  private final FakeClock clock = new FakeClock();
  private final FakeRuntime runtime =
      new FakeRuntime(clock, "jkubelet/busybox:1.35", "jkubelet/pause:3.2");
  private final TestAgents.Recorded recorded = new TestAgents.Recorded();
  private final List<String> events = recorded.events;
  private final List<String> forgotten = recorded.forgotten;
  private Agent kubelet;
  private Path manifests;

  /**
   * The agent here runs its real threads (loop, workers, PLEG) on the fake runtime; on a machine
   * busy with other builds they take longer than Awaitility's default 10 s to react.
   */
  @BeforeAll
  static void patience() {
    org.awaitility.Awaitility.setDefaultTimeout(java.time.Duration.ofSeconds(30));
  }

  @AfterAll
  static void resetPatience() {
    org.awaitility.Awaitility.reset();
  }

  @BeforeEach
  void start() throws Exception {
    manifests = Files.createDirectories(tmp.resolve("manifests"));
    KubeletConfiguration config =
        KubeletConfiguration.builder()
            .set("staticPodPath", manifests.toString())
            .set("readOnlyPort", 0)
            .set("port", 0)
            .set("healthzPort", 0)
            .set("address", "127.0.0.1")
            .set("maxPods", 2)
            .build();
    kubelet =
        Agent.create(
            TestAgents.standalone("node1", tmp.resolve("root"), "10.1.1.1", config),
            TestAgents.dependencies(clock, runtime, ContainerManager.NONE, recorded));
    kubelet.start();
  }

  @AfterEach
  void stop() {
    kubelet.stop();
  }

  private void manifest(String name, String body) throws Exception {
    Files.writeString(manifests.resolve(name + ".yaml"), body);
  }

  private static final String CRASHER =
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: crasher}
      spec:
        containers:
        - {name: c, image: 'jkubelet/busybox:1.35', command: [sh, -c, 'exit 1']}
      """;

  private ContainerStatus status(String pod) {
    return kubelet.podsWithStatus().stream()
        .filter(p -> p.getMetadata().getName().equals(pod))
        .findFirst()
        .map(p -> p.getStatus().getContainerStatuses())
        .filter(l -> l != null && !l.isEmpty())
        .map(l -> l.get(0))
        .orElse(null);
  }

  private String uid(String pod) {
    return kubelet.podsWithStatus().stream()
        .filter(p -> p.getMetadata().getName().equals(pod))
        .findFirst()
        .orElseThrow()
        .getMetadata()
        .getUid();
  }

  private FakeContainer latest(String uid) {
    List<FakeContainer> all = runtime.named(uid, "c");
    return all.get(all.size() - 1);
  }

  @Test
  void crashLoopBackoffDoublesFromTenSecondsToFiveMinutesOnTheInjectedClock() throws Exception {
    manifest("crasher", CRASHER);
    await()
        .until(
            () ->
                status("crasher-node1") != null
                    && status("crasher-node1").getState().getRunning() != null);
    String uid = uid("crasher-node1");

    // The first crash restarts at once.
    runtime.exit(latest(uid).id, 1, "");
    await()
        .until(
            () ->
                status("crasher-node1").getRestartCount() == 1
                    && status("crasher-node1").getState().getRunning() != null);

    long[] backoffs = {10, 20, 40, 80, 160, 300, 300};
    for (int i = 0; i < backoffs.length; i++) {
      int restarts = i + 1;
      runtime.exit(latest(uid).id, 1, "");
      long b = backoffs[i];
      String expected = b < 60 ? b + "s" : (b / 60) + "m" + (b % 60) + "s";
      await()
          .untilAsserted(
              () -> {
                ContainerStatus s = status("crasher-node1");
                assertThat(s.getState().getWaiting()).isNotNull();
                assertThat(s.getState().getWaiting().getReason()).isEqualTo("CrashLoopBackOff");
                assertThat(s.getState().getWaiting().getMessage())
                    .startsWith("back-off " + expected + " ");
                assertThat(s.getLastState().getTerminated().getExitCode()).isEqualTo(1);
              });
      clock.step(Duration.ofSeconds(b - 1));
      // Still backing off a second before the end.
      assertThat(runtime.named(uid, "c")).allMatch(f -> f.state != ContainerState.RUNNING);
      clock.step(Duration.ofSeconds(1));
      await()
          .until(
              () ->
                  status("crasher-node1").getRestartCount() == restarts + 1
                      && status("crasher-node1").getState().getRunning() != null);
    }
    assertThat(events).contains("BackOff: Back-off restarting failed container");
  }

  @Test
  void aMissingImageShowsErrImagePullThenImagePullBackOffUntilTheBackoffEnds() throws Exception {
    manifest(
        "missing",
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: missing}
        spec:
          containers:
          - {name: c, image: 'jkubelet/not-there:1', command: [sleep, '1']}
        """);
    // The sandbox's start wakes the PLEG at once (as Docker's event stream does), so the sync
    // after the failed pull finds the image in back-off within milliseconds: the first
    // ErrImagePull is the Failed event, the status soon says ImagePullBackOff.
    await().until(() -> waiting("missing-node1", "ImagePullBackOff"));
    assertThat(events).contains("Failed: Error: ErrImagePull", "Failed: Error: ImagePullBackOff");
    long pulls = runtime.calls().stream().filter(c -> c.startsWith("pullImage")).count();
    clock.step(Duration.ofSeconds(10));
    await().until(() -> waiting("missing-node1", "ErrImagePull"));
    assertThat(runtime.calls().stream().filter(c -> c.startsWith("pullImage")).count())
        .as("pulled again once the 10 s backoff ended")
        .isEqualTo(pulls + 1);
  }

  private boolean waiting(String pod, String reason) {
    ContainerStatus s = status(pod);
    return s != null
        && s.getState().getWaiting() != null
        && reason.equals(s.getState().getWaiting().getReason());
  }

  @Test
  void anOomKillGivesOneWarningNamingTheContainerItsLimitAndRestartCount() throws Exception {
    manifest(
        "hog",
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: hog}
        spec:
          containers:
          - name: c
            image: 'jkubelet/busybox:1.35'
            resources: {limits: {memory: 16Mi}}
        """);
    await()
        .until(
            () ->
                status("hog-node1") != null && status("hog-node1").getState().getRunning() != null);
    clock.step(Duration.ofSeconds(1));
    runtime.exit(latest(uid("hog-node1")).id, 137, "OOMKilled");
    String expected =
        "OOMKilled: Container c was killed for exceeding its memory limit of 16Mi (restart count 0)";
    await().until(() -> events.stream().anyMatch(e -> e.startsWith(expected + ": ")));
    // It restarts at once; later syncs see the same dead container and say nothing more.
    await().until(() -> status("hog-node1").getRestartCount() == 1);
    assertThat(status("hog-node1").getLastState().getTerminated().getReason())
        .isEqualTo("OOMKilled");
    // A plain crash next: several syncs see the OOM-killed container again before it is gone.
    clock.step(Duration.ofSeconds(1));
    runtime.exit(latest(uid("hog-node1")).id, 1, "");
    await().until(() -> events.contains("BackOff: Back-off restarting failed container"));
    // The sync that sent BackOff may still be scheduling its retry: step the clock a second at a
    // time until the 10 s backoff has passed from wherever the retry was scheduled.
    await()
        .until(
            () -> {
              clock.step(Duration.ofSeconds(1));
              return status("hog-node1").getRestartCount() == 2;
            });
    assertThat(events.stream().filter(e -> e.startsWith("OOMKilled")).count()).isEqualTo(1);
  }

  @Test
  void aRuntimeThatCannotBeReadGivesFailedSyncAndTheSyncIsRetried() throws Exception {
    runtime.setDown(true);
    manifest("p", CRASHER.replace("crasher", "down"));
    await()
        .until(
            () ->
                events.contains("FailedSync: error determining status: fake runtime is down")
                    && events.stream().anyMatch(e -> e.startsWith("FailedCreatePodSandBox")));
    runtime.setDown(false);
    clock.step(Duration.ofSeconds(15)); // past the worker's error backoff
    await()
        .until(
            () ->
                status("down-node1") != null
                    && status("down-node1").getState().getRunning() != null);
  }

  @Test
  void theEventPipelineForgetsARemovedPodOnceItsContainersAreGone() throws Exception {
    manifest("crasher", CRASHER);
    await().until(() -> kubelet.podsWithStatus().size() == 1);
    String uid = uid("crasher-node1");
    await().until(() -> !runtime.named(uid, "c").isEmpty());

    Files.delete(manifests.resolve("crasher.yaml"));

    await().until(() -> forgotten.contains(uid));
    assertThat(runtime.named(uid, "c")).as("forgotten only once its containers are gone").isEmpty();
    assertThat(forgotten).containsOnlyOnce(uid);
  }

  @Test
  void metricsShowTheCachesOfTheAgentWithMaxPodsAsTheBoundOfPerPodState() throws Exception {
    manifest("crasher", CRASHER);
    await().until(() -> kubelet.podsWithStatus().size() == 1);
    await()
        .untilAsserted(
            () ->
                assertThat(scrapeMetrics())
                    .contains("jkubelet_cache_entries{cache=\"pod_manager\"} 1.0")
                    .contains("jkubelet_cache_entries{cache=\"pleg_pod_cache\"} 1.0")
                    .contains("jkubelet_cache_entries{cache=\"pod_workers\"} 1.0"));
    String text = scrapeMetrics();
    for (String perPod :
        List.of(
            "pod_manager",
            "pleg_pod_cache",
            "pod_workers",
            "work_queue",
            "prober_pods",
            "admission_rejected",
            "oom_events")) {
      assertThat(text).contains("jkubelet_cache_capacity{cache=\"" + perPod + "\"} 2.0");
    }
    assertThat(text)
        .contains("jkubelet_cache_capacity{cache=\"loop_config_channel\"} 50.0")
        .contains("jkubelet_cache_capacity{cache=\"loop_pleg_channel\"} 1000.0")
        .contains("jkubelet_cache_capacity{cache=\"loop_probe_channel\"} 1000.0")
        .contains("jkubelet_cache_capacity{cache=\"reason_cache\"} 1000.0")
        .contains("jkubelet_cache_evictions_total{cache=\"reason_cache\"} 0.0")
        // Standalone: no webhooks, so no caches of theirs.
        .doesNotContain("token_review_cache");
    io.jkubelet.agent.metrics.Promtool.check(
        text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  private String scrapeMetrics() {
    return new String(
        kubelet.metrics().scrape(io.jkubelet.agent.metrics.KubeletMetrics.Endpoint.METRICS),
        java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void aPodBeyondMaxPodsIsRejectedAsFailed() throws Exception {
    String pod =
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: p%d}
        spec:
          containers:
          - {name: c, image: 'jkubelet/busybox:1.35'}
        """;
    manifest("p1", pod.formatted(1));
    await().until(() -> kubelet.podsWithStatus().size() == 1);
    manifest("p2", pod.formatted(2));
    await().until(() -> kubelet.podsWithStatus().size() == 2);
    manifest("p3", pod.formatted(3));
    await()
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              Pod p3 =
                  kubelet.podsWithStatus().stream()
                      .filter(p -> p.getMetadata().getName().equals("p3-node1"))
                      .findFirst()
                      .orElseThrow();
              assertThat(p3.getStatus().getPhase()).isEqualTo("Failed");
              assertThat(p3.getStatus().getReason()).isEqualTo("OutOfpods");
              assertThat(p3.getStatus().getMessage())
                  .isEqualTo(
                      "Pod Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2");
            });
    assertThat(runtime.all()).noneMatch(f -> f.name.contains("p3-node1"));
  }

  @Test
  void foreignContainersAreNeverTouched() throws Exception {
    String foreign = runtime.addForeign("not-ours");
    manifest("crasher", CRASHER);
    await().until(() -> kubelet.podsWithStatus().size() == 1);
    Files.delete(manifests.resolve("crasher.yaml"));
    await().until(() -> runtime.all().stream().allMatch(f -> f.id.equals(foreign)));
    assertThat(runtime.calls()).noneMatch(c -> c.endsWith(foreign));
  }
}
