package io.jkubelet.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.events.CorrelatorStats;
import io.jkubelet.agent.prober.ProbeType;
import io.jkubelet.agent.prober.ProbeWorker;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.stats.Summary;
import io.jkubelet.agent.status.ApiStatusManager;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.workers.SyncResult;
import io.jkubelet.agent.workers.UpdatePodOptions;
import io.jkubelet.agent.workers.WorkType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KubeletMetricsTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private final FakeClock clock = new FakeClock(T0);
  private final KubeletMetrics metrics = new KubeletMetrics("node-1");

  private String scrape(KubeletMetrics.Endpoint e) {
    return new String(metrics.scrape(e), StandardCharsets.UTF_8);
  }

  @Test
  void theRuntimeDecoratorCountsAndTimesEveryCallAndItsErrors() {
    FakeRuntime fake = new FakeRuntime(clock);
    var runtime = new InstrumentedRuntime(fake, metrics, clock);
    runtime.version();
    runtime.listContainers();
    runtime.listContainers();
    fake.failNext("removeContainer", new RuntimeError(RuntimeError.Kind.UNAVAILABLE, "down"));
    assertThatThrownBy(() -> runtime.removeContainer("x")).isInstanceOf(RuntimeError.class);

    String text = scrape(KubeletMetrics.Endpoint.METRICS);
    assertThat(text)
        .contains("kubelet_node_name{node=\"node-1\"} 1.0")
        .contains("kubelet_runtime_operations_total{operation_type=\"list_containers\"} 2.0")
        .contains("kubelet_runtime_operations_total{operation_type=\"version\"} 1.0")
        .contains("kubelet_runtime_operations_total{operation_type=\"remove_container\"} 1.0")
        .contains(
            "kubelet_runtime_operations_errors_total{operation_type=\"remove_container\"} 1.0")
        .doesNotContain("kubelet_runtime_operations_errors_total{operation_type=\"version\"}")
        .contains(
            "kubelet_runtime_operations_duration_seconds_bucket{operation_type=\"version\",le=\"0.005\"} 1")
        .contains( // upstream's ExponentialBuckets(.005, 2.5, 14): the last is 0.005 * 2.5^13
            "kubelet_runtime_operations_duration_seconds_bucket{operation_type=\"version\",le=\"745.0580596923828\"} 1");
  }

  @Test
  void theRelistListenerSetsRunningPodsAndContainersByState() {
    PlegMetrics pleg = new PlegMetrics(metrics);
    PodRef a = new PodRef("a", "a", "ns");
    PodRef b = new PodRef("b", "b", "ns");
    pleg.relisted(
        T0,
        T0.plusMillis(30),
        List.of(
            summary("s1", a, true, ContainerState.RUNNING),
            summary("c1", a, false, ContainerState.RUNNING),
            summary("c2", a, false, ContainerState.EXITED),
            summary("s2", b, true, ContainerState.EXITED),
            summary("c3", b, false, ContainerState.RUNNING)));
    pleg.relisted(T0, T0.plusMillis(2), null); // a failed listing keeps the counts

    String text = scrape(KubeletMetrics.Endpoint.METRICS);
    assertThat(text)
        .contains("kubelet_running_pods 1.0")
        .contains("kubelet_running_containers{container_state=\"running\"} 2.0")
        .contains("kubelet_running_containers{container_state=\"exited\"} 1.0")
        .contains("kubelet_running_containers{container_state=\"created\"} 0.0")
        .contains("kubelet_pleg_relist_duration_seconds_count 2")
        .contains("kubelet_pleg_relist_duration_seconds_bucket{le=\"0.025\"} 1")
        .contains("kubelet_pleg_relist_duration_seconds_bucket{le=\"0.05\"} 2");
  }

  private static ContainerSummary summary(
      String id, PodRef pod, boolean sandbox, ContainerState state) {
    return new ContainerSummary(id, pod, sandbox ? "POD" : id, sandbox, state, T0, 0);
  }

  @Test
  void theSyncDecoratorTimesSyncsByTypeAndAPodsStartOnce() throws Exception {
    Map<String, PodStatus> statuses = new HashMap<>();
    Pod pod =
        TestPods.builder("default", "web", "u1")
            .editMetadata()
            .addToAnnotations("kubernetes.io/config.seen", T0.toString())
            .endMetadata()
            .build();
    var sync =
        new InstrumentedPodSync(
            (work, last) -> {
              clock.step(Duration.ofMillis(200));
              statuses.put("u1", new PodStatusBuilder().withPhase("Running").build());
              return new SyncResult(clock.instant(), null);
            },
            metrics,
            uid -> Optional.ofNullable(statuses.get(uid)),
            clock);
    statuses.put("u1", new PodStatusBuilder().withPhase("Pending").build());
    clock.step(Duration.ofSeconds(3));

    sync.sync(UpdatePodOptions.of(pod, WorkType.CREATE), T0);
    sync.sync(UpdatePodOptions.of(pod, WorkType.SYNC), T0);

    String text = scrape(KubeletMetrics.Endpoint.METRICS);
    assertThat(text)
        .contains(
            "kubelet_pod_worker_duration_seconds_bucket{operation_type=\"create\",le=\"0.1\"} 0")
        .contains(
            "kubelet_pod_worker_duration_seconds_bucket{operation_type=\"create\",le=\"0.25\"} 1")
        .contains("kubelet_pod_worker_duration_seconds_count{operation_type=\"sync\"} 1")
        .contains("kubelet_pod_start_duration_seconds_count 1")
        .contains("kubelet_pod_start_duration_seconds_sum 3.2");
  }

  @Test
  void eachStartPhaseThatEndedIsObservedByPhaseBesideThePodsStart() {
    var timelines =
        io.jkubelet.agent.timeline.PodTimelines.create(
            clock, null, new PodStartPhaseMetrics(metrics));
    timelines.admission(TestPods.named("default", "web", "u1")).end();
    var pull = timelines.begin("u1", io.jkubelet.agent.timeline.Phase.IMAGE_PULL, "busybox");
    clock.step(Duration.ofSeconds(20));
    pull.end();

    assertThat(scrape(KubeletMetrics.Endpoint.METRICS))
        .contains("# TYPE kubelet_pod_start_phase_duration_seconds histogram")
        .contains("kubelet_pod_start_phase_duration_seconds_count{phase=\"admission\"} 1")
        .contains(
            "kubelet_pod_start_phase_duration_seconds_bucket{phase=\"image_pull\",le=\"10.0\"} 0")
        .contains(
            "kubelet_pod_start_phase_duration_seconds_bucket{phase=\"image_pull\",le=\"30.0\"} 1")
        .contains("kubelet_pod_start_phase_duration_seconds_sum{phase=\"image_pull\"} 20.0");
  }

  @Test
  void probeResultsCarryUpstreamsLabelsAndLeaveOutPodsThatAreGone() {
    var live = new ProbeWorker.Key("u1", "app", ProbeType.READINESS);
    var gone = new ProbeWorker.Key("u2", "app", ProbeType.LIVENESS);
    metrics.registerProbes(
        ProbeCollectors.results(
            () ->
                List.of(
                    new ProbeWorker.ResultCounts(live, 5, 2, 1),
                    new ProbeWorker.ResultCounts(gone, 1, 0, 0)),
            uid ->
                uid.equals("u1") ? Optional.of(new PodRef("u1", "web", "ns")) : Optional.empty()));

    String text = scrape(KubeletMetrics.Endpoint.PROBES);
    assertThat(text)
        .contains(
            "prober_probe_total{container=\"app\",namespace=\"ns\",pod=\"web\",pod_uid=\"u1\","
                + "probe_type=\"Readiness\",result=\"successful\"} 5.0")
        .contains("probe_type=\"Readiness\",result=\"failed\"} 2.0")
        .contains("probe_type=\"Readiness\",result=\"unknown\"} 1.0")
        .doesNotContain("u2");
  }

  @Test
  void jkubeletsOwnCountersAreReadAtScrapeTime() {
    Map<CorrelatorStats.Cause, Long> causes = Map.of(CorrelatorStats.Cause.DROPPED_SPAM_FILTER, 3L);
    var correlator =
        new CorrelatorStats(
            causes,
            Map.of(
                "BackOff",
                Map.of(
                    CorrelatorStats.Cause.DROPPED_SPAM_FILTER,
                    3L,
                    CorrelatorStats.Cause.DEDUPLICATED,
                    4L)));
    metrics.register(
        new EventCollector(
            () -> Map.of("Warning", Map.of("BackOff", 9L)),
            () -> Map.of("log", Map.of("Pulled", 2L)),
            () -> correlator,
            () -> Map.of("created", 5L, "dropped/spam-filter", 3L)));
    metrics.register(new StatusCollector(() -> new ApiStatusManager.Stats(7, 2, 1, 3, 4, 1, 9, 2)));
    metrics.register(
        ProbeCollectors.attempts(
            () ->
                List.of(
                    new ProbeWorker.Stats(
                        new ProbeWorker.Key("u1", "app", ProbeType.LIVENESS),
                        Duration.ofSeconds(10),
                        12,
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(11),
                        1))));

    String text = scrape(KubeletMetrics.Endpoint.METRICS);
    assertThat(text)
        .contains("jkubelet_events_recorded_total{reason=\"BackOff\",type=\"Warning\"} 9.0")
        .contains("jkubelet_events_deduplicated_total{reason=\"BackOff\"} 4.0")
        .contains(
            "jkubelet_events_dropped_total{cause=\"spam_filter\",reason=\"BackOff\",sink=\"api\"} 3.0")
        .contains(
            "jkubelet_events_dropped_total{cause=\"queue_full\",reason=\"Pulled\",sink=\"log\"} 2.0")
        .contains("jkubelet_event_sink_requests_total{result=\"created\",sink=\"api\"} 5.0")
        .doesNotContain("result=\"dropped")
        .contains("jkubelet_status_writes_total{result=\"written\"} 7.0")
        .contains("jkubelet_status_writes_total{result=\"failed\"} 3.0")
        .contains("jkubelet_status_pending 2.0")
        .contains("jkubelet_prober_attempts_total{probe_type=\"liveness\"} 12.0")
        .contains("jkubelet_prober_skipped_ticks_total{probe_type=\"liveness\"} 1.0")
        .contains("jkubelet_prober_workers{probe_type=\"readiness\"} 0.0");
  }

  @Test
  void resourceMetricsAreWhatMetricsServerReadsWithTheirSampleTimes() {
    String time = "2026-01-01T00:00:05Z";
    long ms = Instant.parse(time).toEpochMilli();
    var cpu = new Summary.CpuStats(time, null, 2_500_000_000L);
    var mem = new Summary.MemoryStats(time, null, 10L, 7L, null, null, null);
    var node =
        new Summary.NodeStats("n", null, null, new Summary.Usage(cpu, mem, null), null, null, null);
    var pod =
        new Summary.PodStats(
            new Summary.PodReference("web", "ns", "u1"),
            null,
            List.of(new Summary.ContainerStats("app", null, cpu, mem, null, null)),
            new Summary.Usage(cpu, mem, null),
            null,
            null,
            null);
    metrics.registerResource(new ResourceCollector(() -> new Summary(node, List.of(pod))));

    String text = scrape(KubeletMetrics.Endpoint.RESOURCE);
    assertThat(text)
        .contains("node_cpu_usage_seconds_total 2.5 " + ms)
        .contains("node_memory_working_set_bytes 7.0 " + ms)
        .contains(
            "container_cpu_usage_seconds_total{container=\"app\",namespace=\"ns\",pod=\"web\"} 2.5 "
                + ms)
        .contains(
            "container_memory_working_set_bytes{container=\"app\",namespace=\"ns\",pod=\"web\"} 7.0 "
                + ms)
        .contains("pod_cpu_usage_seconds_total{namespace=\"ns\",pod=\"web\"} 2.5 " + ms)
        .contains("scrape_error 0.0");
  }

  /**
   * A pod force-deleted while its containers still stop, and made again under its name (a
   * StatefulSet does so at once): the node has two pods of one name. Each series once being given
   * twice made every {@code /metrics/resource} scrape fail; now the newest pod's series is given,
   * and every other series, as upstream's registry keeps the rest when one is a duplicate.
   */
  @Test
  void twoPodsOfOneNameLeaveTheResourceMetricsWholeWithTheNewestPods() {
    var node = resourceNode();
    var old = resourcePod("web", "u-old", "2026-01-01T00:00:01Z", 11L);
    var fresh = resourcePod("web", "u-new", "2026-01-01T00:00:04Z", 22L);
    var other = resourcePod("db", "u-db", "2026-01-01T00:00:02Z", 33L);
    metrics.registerResource(
        new ResourceCollector(() -> new Summary(node, List.of(old, fresh, other))));

    String text = scrape(KubeletMetrics.Endpoint.RESOURCE);
    assertThat(text)
        .contains("scrape_error 0.0")
        .contains("node_memory_working_set_bytes 7.0")
        .contains("pod_memory_working_set_bytes{namespace=\"ns\",pod=\"db\"} 33.0")
        .contains("pod_memory_working_set_bytes{namespace=\"ns\",pod=\"web\"} 22.0")
        .contains(
            "container_memory_working_set_bytes{container=\"app\",namespace=\"ns\",pod=\"web\"}"
                + " 22.0")
        .doesNotContain("} 11.0");
  }

  private static Summary.NodeStats resourceNode() {
    String time = "2026-01-01T00:00:05Z";
    return new Summary.NodeStats(
        "n",
        null,
        null,
        new Summary.Usage(
            new Summary.CpuStats(time, null, 2_500_000_000L),
            new Summary.MemoryStats(time, null, 10L, 7L, null, null, null),
            null),
        null,
        null,
        null);
  }

  private static Summary.PodStats resourcePod(
      String name, String uid, String start, long workingSet) {
    String time = "2026-01-01T00:00:05Z";
    var cpu = new Summary.CpuStats(time, null, 1_000_000_000L);
    var mem = new Summary.MemoryStats(time, null, workingSet, workingSet, null, null, null);
    return new Summary.PodStats(
        new Summary.PodReference(name, "ns", uid),
        start,
        List.of(new Summary.ContainerStats("app", start, cpu, mem, null, null)),
        new Summary.Usage(cpu, mem, null),
        null,
        null,
        null);
  }

  @Test
  void aSummaryThatCannotBeReadIsAScrapeError() {
    metrics.registerResource(
        new ResourceCollector(
            () -> {
              throw new IllegalStateException("no cgroups");
            }));
    assertThat(scrape(KubeletMetrics.Endpoint.RESOURCE))
        .contains("scrape_error 1.0")
        .doesNotContain("node_cpu_usage_seconds_total ");
  }

  /** A pod whose summary lists one container twice (no pod should): the scrape answers anyway. */
  @Test
  void aSeriesGivenTwiceIsAScrapeErrorNotAFailedScrape() {
    var twice = resourcePod("web", "u1", "2026-01-01T00:00:01Z", 11L);
    var pod =
        new Summary.PodStats(
            twice.podRef(),
            twice.startTime(),
            List.of(twice.containers().get(0), twice.containers().get(0)),
            new Summary.Usage(twice.cpu(), twice.memory(), null),
            null,
            null,
            null);
    metrics.registerResource(
        new ResourceCollector(() -> new Summary(resourceNode(), List.of(pod))));
    assertThat(scrape(KubeletMetrics.Endpoint.RESOURCE)).contains("scrape_error 1.0");
  }

  @Test
  void imagePullsAreCountedTimedAndShownInFlight() {
    ImagePullMetrics pulls = new ImagePullMetrics(metrics);
    assertThat(scrape(KubeletMetrics.Endpoint.METRICS))
        .contains("kubelet_image_pull_in_flight 0.0");
    pulls.started();
    pulls.started();
    pulls.downloaded(1_000_000);
    pulls.downloaded(500);
    assertThat(scrape(KubeletMetrics.Endpoint.METRICS))
        .contains("kubelet_image_pull_in_flight 2.0")
        .contains("kubelet_image_pull_bytes_total 1000500.0");
    pulls.finished(java.time.Duration.ofSeconds(7), true);
    pulls.finished(java.time.Duration.ofSeconds(90), false);
    assertThat(scrape(KubeletMetrics.Endpoint.METRICS))
        .contains("kubelet_image_pull_in_flight 0.0")
        .contains("kubelet_image_pull_duration_seconds_bucket{le=\"5.0\"} 0")
        .contains("kubelet_image_pull_duration_seconds_bucket{le=\"10.0\"} 1")
        .contains("kubelet_image_pull_duration_seconds_bucket{le=\"120.0\"} 2")
        .contains("kubelet_image_pull_duration_seconds_count 2");
  }

  @Test
  void everyEndpointPassesPromtool() throws Exception {
    // Every metric with samples: the cases above, run on one set of registries.
    theRuntimeDecoratorCountsAndTimesEveryCallAndItsErrors();
    theRelistListenerSetsRunningPodsAndContainersByState();
    theSyncDecoratorTimesSyncsByTypeAndAPodsStartOnce();
    probeResultsCarryUpstreamsLabelsAndLeaveOutPodsThatAreGone();
    jkubeletsOwnCountersAreReadAtScrapeTime();
    resourceMetricsAreWhatMetricsServerReadsWithTheirSampleTimes();
    imagePullsAreCountedTimedAndShownInFlight();
    metrics.restClientRequests.labelValues("200", "GET", "10.0.0.1:6443").inc();
    for (KubeletMetrics.Endpoint e : KubeletMetrics.Endpoint.values()) {
      Promtool.check(metrics.scrape(e));
    }
  }
}
