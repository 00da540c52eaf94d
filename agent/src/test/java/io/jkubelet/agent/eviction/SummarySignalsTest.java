package io.jkubelet.agent.eviction;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.stats.NodeReader;
import io.jkubelet.agent.stats.NodeReading;
import io.jkubelet.agent.stats.StatsOptions;
import io.jkubelet.agent.stats.SummaryProvider;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.config.EvictionSettings;
import io.jkubelet.config.EvictionSettings.Signal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The signals come from the node's reading that {@code /stats/summary} reports: the summary's node
 * section is what the eviction manager last observed, read from cgroup v1 and proc files laid out
 * in a temporary directory.
 */
class SummarySignalsTest {
  private static final long GI = 1L << 30;
  private static final long MEM_TOTAL = 16_384_000L * 1024;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00.300Z"));

  private void write(String path, String content) throws IOException {
    Path p = dir.resolve(path);
    Files.createDirectories(p.getParent());
    Files.writeString(p, content);
  }

  @Test
  void theObservationsAreUpstreamsOfTheSummarysNodeFields() {
    Instant t = clock.instant();
    NodeReading r =
        new NodeReading(
            new NodeReading.Memory(t, 6 * GI, 10 * GI, 12 * GI, null, null, null),
            new NodeReading.Memory(t.plusMillis(1), null, GI, GI, null, null, null),
            new NodeReading.Fs(t.plusMillis(2), 100, 1000, 800, 7L, 70L),
            new NodeReading.Fs(t.plusMillis(3), 200, 2000, 1700, null, null),
            new NodeReading.Rlimit(t.plusMillis(4), 4194304, 1234));

    Map<Signal, Observation> expected = new EnumMap<>(Signal.class);
    expected.put(Signal.MEMORY_AVAILABLE, new Observation(6 * GI, 16 * GI, t));
    expected.put(Signal.NODEFS_AVAILABLE, new Observation(100, 1000, t.plusMillis(2)));
    expected.put(Signal.NODEFS_INODES_FREE, new Observation(7, 70, t.plusMillis(2)));
    expected.put(Signal.IMAGEFS_AVAILABLE, new Observation(200, 2000, t.plusMillis(3)));
    expected.put(Signal.PID_AVAILABLE, new Observation(4194304 - 1234, 4194304, t.plusMillis(4)));
    // No allocatableMemory.available without a kubepods limit, no imagefs.inodesFree without
    // inodes: left out, as upstream leaves them.
    assertThat(SummarySignals.observations(r)).isEqualTo(expected);
    assertThat(SummarySignals.observations(NodeReading.NONE)).isEmpty();
  }

  @Test
  void theSummarysNodeSectionIsWhatTheEvictionManagerLastObservedAndActedOn() throws Exception {
    write("proc/meminfo", "MemTotal:       16384000 kB\nMemFree:         1000000 kB\n");
    write("proc/sys/kernel/pid_max", "4194304\n");
    write("proc/loadavg", "0.50 0.40 0.30 3/1234 5678\n");
    write("proc/stat", "cpu  100 0 100 5000 0 0 0 0 0 0\nbtime 1700000000\n");
    write("cg/cpuacct/cpuacct.usage", "1\n");
    write("cg/memory/memory.usage_in_bytes", "8000000000\n");
    write("cg/memory/memory.stat", "cache 10\ntotal_inactive_file 2000000000\n");
    write("cg/memory/kubepods/memory.limit_in_bytes", "4294967296\n");
    write("cg/memory/kubepods/memory.usage_in_bytes", "1073741824\n");
    write("cg/memory/kubepods/memory.stat", "total_inactive_file 73741824\n");
    StatsOptions options =
        new StatsOptions(
            "node-a",
            MEM_TOTAL,
            dir,
            () -> null,
            null,
            new StatsOptions.Host(dir.resolve("cg"), dir.resolve("proc")),
            StatsOptions.DEFAULT_TTL,
            new StatsOptions.PodCgroups(uid -> List.of(), "/kubepods"));
    NodeReader node = NodeReader.create(options, clock);
    SummaryProvider summary = SummaryProvider.create(options, node, List::of, clock);
    Fakes.Killer killer = new Fakes.Killer();
    Pod hog = Fakes.pod("hog", "", "");
    EvictionSettings settings =
        new EvictionSettings(
            Map.of("memory.available", "2Gi"), Map.of(), Map.of(), Map.of(), Duration.ZERO, 0);
    DefaultEvictionManager manager =
        new DefaultEvictionManager(
            EvictionOptions.of(settings.thresholds(true), Duration.ZERO, 0),
            new EvictionManager.Parts(
                "node-a",
                new SummarySignals(node),
                freshDisk -> Map.of("uid-hog", Fakes.usage(GI)),
                () -> false,
                new EvictionManager.Pods(
                    () -> List.of(hog), p -> false, p -> Optional.empty(), killer),
                new EvictionManager.Reclaim(new Fakes.Gc(), new Fakes.Gc()),
                new Fakes.Recorder(),
                EvictionManager.Listener.NONE),
            clock,
            new FakeSchedulers(clock));

    manager.tick(); // a full read: every signal
    assertThat(manager.observations()).hasSize(7);
    assertThat(fromSummary(summary)).isEqualTo(toTheSecond(manager.observations()));
    assertThat(killer.killed).isEmpty();

    // 100 ms later the node's working set grows past the threshold: a memory read sees it, the
    // manager evicts on it, and the summary shows that very reading.
    clock.step(Duration.ofMillis(100));
    write("cg/memory/memory.usage_in_bytes", "17000000000\n");
    manager.tick();
    assertThat(killer.killed).extracting(k -> k.pod().getMetadata().getName()).contains("hog");
    Observation acted = manager.observations().get(Signal.MEMORY_AVAILABLE);
    assertThat(acted.available()).isEqualTo(MEM_TOTAL - 15_000_000_000L);
    // The pressure is gone again by the time a user asks: the summary still shows what the
    // manager decided on, not a reading of its own.
    write("cg/memory/memory.usage_in_bytes", "8000000000\n");
    assertThat(fromSummary(summary)).isEqualTo(toTheSecond(manager.observations()));
    JsonNode n = JSON.readTree(SummaryProvider.json(summary.summary())).get("node");
    assertThat(n.at("/memory/availableBytes").asLong()).isEqualTo(acted.available());
  }

  /** The summary's node fields read as upstream's {@code makeSignalObservations} reads them. */
  private static Map<Signal, Observation> fromSummary(SummaryProvider summary) throws Exception {
    JsonNode n = JSON.readTree(SummaryProvider.json(summary.summary())).get("node");
    Map<Signal, Observation> out = new EnumMap<>(Signal.class);
    out.put(Signal.MEMORY_AVAILABLE, memory(n.get("memory")));
    for (JsonNode c : n.get("systemContainers")) {
      if (c.get("name").asText().equals("pods")) {
        out.put(Signal.ALLOCATABLE_MEMORY_AVAILABLE, memory(c.get("memory")));
      }
    }
    JsonNode fs = n.get("fs");
    out.put(Signal.NODEFS_AVAILABLE, obs(fs, "availableBytes", "capacityBytes"));
    out.put(Signal.NODEFS_INODES_FREE, obs(fs, "inodesFree", "inodes"));
    JsonNode image = n.at("/runtime/imageFs");
    out.put(Signal.IMAGEFS_AVAILABLE, obs(image, "availableBytes", "capacityBytes"));
    out.put(Signal.IMAGEFS_INODES_FREE, obs(image, "inodesFree", "inodes"));
    JsonNode rlimit = n.get("rlimit");
    long max = rlimit.get("maxpid").asLong();
    out.put(
        Signal.PID_AVAILABLE,
        new Observation(
            max - rlimit.get("curproc").asLong(), max, Instant.parse(rlimit.get("time").asText())));
    return out;
  }

  private static Observation memory(JsonNode m) {
    long available = m.get("availableBytes").asLong();
    return new Observation(
        available,
        available + m.get("workingSetBytes").asLong(),
        Instant.parse(m.get("time").asText()));
  }

  private static Observation obs(JsonNode fs, String available, String capacity) {
    return new Observation(
        fs.get(available).asLong(),
        fs.get(capacity).asLong(),
        Instant.parse(fs.get("time").asText()));
  }

  /** The summary's times are {@code metav1.Time}s: to the second. */
  private static Map<Signal, Observation> toTheSecond(Map<Signal, Observation> observations) {
    Map<Signal, Observation> out = new EnumMap<>(Signal.class);
    observations.forEach(
        (s, o) ->
            out.put(
                s,
                new Observation(
                    o.available(), o.capacity(), o.time().truncatedTo(ChronoUnit.SECONDS))));
    return out;
  }
}
