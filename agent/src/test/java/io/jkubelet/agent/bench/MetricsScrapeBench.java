package io.jkubelet.agent.bench;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.events.CorrelatorStats;
import io.jkubelet.agent.metrics.EventCollector;
import io.jkubelet.agent.metrics.InstrumentedPodSync;
import io.jkubelet.agent.metrics.InstrumentedRuntime;
import io.jkubelet.agent.metrics.KubeletMetrics;
import io.jkubelet.agent.metrics.PlegMetrics;
import io.jkubelet.agent.metrics.ProbeCollectors;
import io.jkubelet.agent.metrics.ResourceCollector;
import io.jkubelet.agent.metrics.StatusCollector;
import io.jkubelet.agent.prober.ProbeType;
import io.jkubelet.agent.prober.ProbeWorker;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.SandboxStatus;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.stats.StatsOptions;
import io.jkubelet.agent.stats.SummaryProvider;
import io.jkubelet.agent.status.ApiStatusManager;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.workers.SyncResult;
import io.jkubelet.agent.workers.UpdatePodOptions;
import io.jkubelet.agent.workers.WorkType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one scrape of each metrics endpoint, and of {@code /stats/summary}'s JSON, at 110
 * pods (a sandbox and 2 containers each, 2 probes per pod), without the HTTP server: the series are
 * made by the real decorators and collectors over {@link FakeRuntime}, and the summary reads a fake
 * cgroup v1 tree of 330 containers from a temp directory (TTL 0, so every scrape reads the files).
 * Run by deploy/scripts/bench-metrics.sh; the goal for {@code /metrics} is under 20 ms.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Threads(1)
public class MetricsScrapeBench {
  static final int PODS = 110;
  private KubeletMetrics metrics;
  private SummaryProvider summary;
  private Path dir;

  @Setup
  public void setUp() throws Exception {
    FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
    metrics = new KubeletMetrics("node-1");
    dir = Files.createTempDirectory("metrics-bench");
    List<PodStatus> pods = new ArrayList<>();
    List<ContainerSummary> listed = new ArrayList<>();
    List<ProbeWorker.ResultCounts> probes = new ArrayList<>();
    Map<String, PodRef> refs = new HashMap<>();
    for (int i = 0; i < PODS; i++) {
      PodRef ref = new PodRef("uid-" + i, "pod-" + i, "ns-" + (i % 10));
      refs.put(ref.uid(), ref);
      pods.add(pod(ref, i, clock.instant(), listed));
      probes.add(
          new ProbeWorker.ResultCounts(
              new ProbeWorker.Key(ref.uid(), "app", ProbeType.LIVENESS), 100, 1, 0));
      probes.add(
          new ProbeWorker.ResultCounts(
              new ProbeWorker.Key(ref.uid(), "app", ProbeType.READINESS), 100, 3, 1));
    }
    exercise(clock, listed);
    metrics.registerProbes(
        ProbeCollectors.results(() -> probes, uid -> Optional.ofNullable(refs.get(uid))));
    metrics.register(ProbeCollectors.attempts(List::of));
    Map<String, Long> reasons = new HashMap<>();
    for (String r :
        List.of("Pulled", "Created", "Started", "Killing", "BackOff", "Unhealthy", "Scheduled")) {
      reasons.put(r, 1000L);
    }
    metrics.register(
        new EventCollector(
            () -> Map.of("Normal", reasons, "Warning", reasons),
            () -> Map.of("api", reasons),
            () ->
                new CorrelatorStats(
                    Map.of(), Map.of("BackOff", Map.of(CorrelatorStats.Cause.DEDUPLICATED, 9L))),
            () -> Map.of("created", 10L, "patched", 20L)));
    metrics.register(new StatusCollector(() -> new ApiStatusManager.Stats(1, 2, 3, 4, 5, 6, 7, 8)));
    summary =
        SummaryProvider.create(
            new StatsOptions(
                "node-1",
                8L << 30,
                dir,
                () -> null,
                null,
                new StatsOptions.Host(dir.resolve("cgroup"), dir.resolve("proc")),
                Duration.ZERO,
                StatsOptions.PodCgroups.NONE),
            () -> pods,
            clock);
    metrics.registerResource(new ResourceCollector(summary::summary));
  }

  /** Every runtime operation, a relist and a sync of every pod, as a running node would have. */
  private void exercise(FakeClock clock, List<ContainerSummary> listed) throws Exception {
    var runtime = new InstrumentedRuntime(new FakeRuntime(clock), metrics, clock);
    runtime.version();
    runtime.listContainers();
    runtime.listImages();
    runtime.imagePresent("x");
    new PlegMetrics(metrics).relisted(clock.instant(), clock.instant(), listed);
    var sync =
        new InstrumentedPodSync(
            (w, t) -> new SyncResult(clock.instant(), null),
            metrics,
            uid -> Optional.of(new PodStatusBuilder().withPhase("Running").build()),
            clock);
    for (WorkType type : WorkType.values()) {
      var pod = new PodBuilder().withNewMetadata().withUid("u").withName("p").endMetadata().build();
      sync.sync(
          type == WorkType.KILL
              ? new UpdatePodOptions(pod, type, null)
              : UpdatePodOptions.of(pod, type),
          clock.instant());
    }
  }

  private PodStatus pod(PodRef ref, int i, Instant now, List<ContainerSummary> listed)
      throws IOException {
    String sandbox = id('s', i);
    container(sandbox, 1000 + i);
    listed.add(new ContainerSummary(sandbox, ref, "POD", true, ContainerState.RUNNING, now, 0));
    List<ContainerStatus> containers = new ArrayList<>();
    for (String name : List.of("app", "side")) {
      String id = id(name.charAt(0), i);
      container(id, 0);
      listed.add(new ContainerSummary(id, ref, name, false, ContainerState.RUNNING, now, 0));
      containers.add(
          new ContainerStatus(
              id,
              name,
              sandbox,
              ContainerState.RUNNING,
              new ContainerStatus.Times(now, now, null),
              new ContainerStatus.Exit(0, "", ""),
              new ContainerStatus.Origin("img", "", "h", 0, Map.of()),
              0));
    }
    write(
        dir.resolve("proc/" + (1000 + i) + "/net/dev"),
        "h\nh\n  eth0: 1 2 0 0 0 0 0 0 3 4 0 0 0 0 0 0\n");
    return new PodStatus(
        ref, List.of(SandboxStatus.of(sandbox, 0, true, "10.0.0." + i, now, Map.of())), containers);
  }

  private void container(String id, long pid) throws IOException {
    write(dir.resolve("cgroup/cpuacct/docker/" + id + "/cpuacct.usage"), "123456789");
    Path m = dir.resolve("cgroup/memory/docker/" + id);
    write(m.resolve("memory.usage_in_bytes"), "50000000");
    write(
        m.resolve("memory.stat"),
        "total_rss 100\ntotal_inactive_file 10\ntotal_pgfault 7\ntotal_pgmajfault 1\n");
    write(m.resolve("cgroup.procs"), pid == 0 ? "" : pid + "\n");
  }

  private static String id(char c, int i) {
    return String.format("%c%063d", c, i);
  }

  private static void write(Path file, String content) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
  }

  @Benchmark
  public byte[] metrics() {
    return metrics.scrape(KubeletMetrics.Endpoint.METRICS);
  }

  @Benchmark
  public byte[] probes() {
    return metrics.scrape(KubeletMetrics.Endpoint.PROBES);
  }

  @Benchmark
  public byte[] resource() {
    return metrics.scrape(KubeletMetrics.Endpoint.RESOURCE);
  }

  @Benchmark
  public byte[] statsSummary() {
    return SummaryProvider.json(summary.summary());
  }
}
