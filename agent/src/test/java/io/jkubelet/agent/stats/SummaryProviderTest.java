package io.jkubelet.agent.stats;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jkubelet.agent.logs.PodLogPaths;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.SandboxStatus;
import io.jkubelet.agent.util.FakeClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SummaryProviderTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final PodRef POD = new PodRef("uid-1", "web", "default");
  private static final String SANDBOX = "a".repeat(64);
  private static final String APP = "b".repeat(64);
  private static final String OLD = "c".repeat(64);

  @TempDir Path dir;
  private final FakeClock clock = new FakeClock(T0);
  private final List<PodStatus> pods = new ArrayList<>();

  private SummaryProvider provider(FakeHost host, Duration ttl) {
    return provider(host, ttl, null);
  }

  /** The same, with the engine's root (its layer store) at {@code engine}. */
  private SummaryProvider provider(FakeHost host, Duration ttl, Path engine) {
    return SummaryProvider.create(
        new StatsOptions(
            "node-1",
            8_000_000_000L,
            dir,
            () -> engine,
            new PodLogPaths(dir.resolve("log/pods"), dir.resolve("log/containers")),
            new StatsOptions.Host(host.cgroup, host.proc),
            ttl,
            StatsOptions.PodCgroups.NONE),
        () -> List.copyOf(pods),
        clock);
  }

  private static PodStatus pod(boolean sandboxReady) {
    return new PodStatus(
        POD,
        List.of(
            SandboxStatus.of(SANDBOX, 0, sandboxReady, "10.0.0.5", T0.minusSeconds(60), Map.of())),
        List.of(
            container(APP, "app", ContainerState.RUNNING, T0.minusSeconds(30)),
            container(OLD, "app", ContainerState.EXITED, T0.minusSeconds(50))));
  }

  private static ContainerStatus container(
      String id, String name, ContainerState state, Instant created) {
    return new ContainerStatus(
        id,
        name,
        SANDBOX,
        state,
        new ContainerStatus.Times(created, created.plusSeconds(1), null),
        new ContainerStatus.Exit(0, "", ""),
        new ContainerStatus.Origin("img", "", "h", 0, Map.of()),
        0);
  }

  @ParameterizedTest(name = "cgroup v2: {0}")
  @ValueSource(booleans = {false, true})
  void containersUnderTheirPodsCgroupAreFound(boolean v2) {
    FakeHost host = new FakeHost(dir, v2);
    String podCgroup = "kubepods/burstable/poduid-1";
    host.container(podCgroup, SANDBOX, 1_000_000_000L, 1_000_000, 0, 4242);
    host.container(podCgroup, APP, 3_000_000_000L, 50_000_000, 10_000_000, 4343);
    host.network(4242, 12345, 678);
    pods.add(pod(true));
    SummaryProvider provider =
        SummaryProvider.create(
            new StatsOptions(
                "node-1",
                8_000_000_000L,
                dir,
                () -> null,
                null,
                new StatsOptions.Host(host.cgroup, host.proc),
                Duration.ZERO,
                new StatsOptions.PodCgroups(
                    uid ->
                        List.of(
                            "/kubepods/pod" + uid,
                            "/kubepods/burstable/pod" + uid,
                            "/kubepods/besteffort/pod" + uid),
                    null)),
            () -> List.copyOf(pods),
            clock);

    Summary.PodStats p = provider.summary().pods().get(0);

    assertThat(p.containers().get(0).cpu().usageCoreNanoSeconds()).isEqualTo(3_000_000_000L);
    assertThat(p.cpu().usageCoreNanoSeconds()).isEqualTo(4_000_000_000L);
    assertThat(p.network().rxBytes()).isEqualTo(12345L);
  }

  /**
   * A crash-looping pod with a cgroup of its own: its CPU and memory are the pod cgroup's, which
   * keeps the exited containers' CPU time, as upstream's. Summed over the running containers, the
   * pod's cumulative CPU went back each time its container exited, a counter reset for Prometheus
   * and metrics-server.
   */
  @ParameterizedTest(name = "cgroup v2: {0}")
  @ValueSource(booleans = {false, true})
  void aPodWithACgroupOfItsOwnHasItsCgroupsUsageWhichNeverGoesBack(boolean v2) {
    FakeHost host = new FakeHost(dir, v2);
    // The pod cgroup: the sandbox (1 s), the running container (3 s), an exited one (2 s).
    host.container("kubepods/burstable", "poduid-1", 6_000_000_000L, 80_000_000, 20_000_000, 1);
    String podCgroup = "kubepods/burstable/poduid-1";
    host.container(podCgroup, SANDBOX, 1_000_000_000L, 1_000_000, 0, 4242);
    host.container(podCgroup, APP, 3_000_000_000L, 50_000_000, 10_000_000, 4343);
    pods.add(pod(true));
    SummaryProvider provider =
        SummaryProvider.create(
            new StatsOptions(
                "node-1",
                8_000_000_000L,
                dir,
                () -> null,
                null,
                new StatsOptions.Host(host.cgroup, host.proc),
                Duration.ZERO,
                new StatsOptions.PodCgroups(
                    uid -> List.of("/kubepods/pod" + uid, "/kubepods/burstable/pod" + uid), null)),
            () -> List.copyOf(pods),
            clock);

    Summary.PodStats running = provider.summary().pods().get(0);
    assertThat(running.cpu().usageCoreNanoSeconds()).isEqualTo(6_000_000_000L);
    assertThat(running.memory().workingSetBytes()).isEqualTo(60_000_000L);
    assertThat(running.containers().get(0).cpu().usageCoreNanoSeconds()).isEqualTo(3_000_000_000L);

    // The container exits: the pod cgroup keeps its CPU time.
    pods.set(
        0,
        new PodStatus(
            POD,
            pod(true).sandboxes(),
            List.of(container(APP, "app", ContainerState.EXITED, T0.minusSeconds(30)))));
    clock.step(Duration.ofSeconds(10));
    Summary.PodStats crashed = provider.summary().pods().get(0);
    assertThat(crashed.containers()).isEmpty();
    assertThat(crashed.cpu().usageCoreNanoSeconds())
        .isGreaterThanOrEqualTo(running.cpu().usageCoreNanoSeconds());
  }

  @ParameterizedTest(name = "cgroup v2: {0}")
  @ValueSource(booleans = {false, true})
  void podAndContainerUsageComeFromTheirCgroupsAndTheSandboxNetwork(boolean v2) {
    FakeHost host = new FakeHost(dir, v2);
    host.container(SANDBOX, 1_000_000_000L, 1_000_000, 0, 4242);
    host.container(APP, 3_000_000_000L, 50_000_000, 10_000_000, 4343);
    host.network(4242, 12345, 678);
    pods.add(pod(true));

    Summary s = provider(host, Duration.ZERO).summary();

    assertThat(s.pods()).hasSize(1);
    Summary.PodStats p = s.pods().get(0);
    assertThat(p.podRef()).isEqualTo(new Summary.PodReference("web", "default", "uid-1"));
    assertThat(p.startTime()).isEqualTo("2025-12-31T23:59:00Z");
    assertThat(p.containers()).extracting(Summary.ContainerStats::name).containsExactly("app");
    Summary.ContainerStats c = p.containers().get(0);
    assertThat(c.cpu().usageCoreNanoSeconds()).isEqualTo(3_000_000_000L);
    assertThat(c.cpu().usageNanoCores()).isNull(); // no previous sample
    assertThat(c.memory().usageBytes()).isEqualTo(50_000_000L);
    assertThat(c.memory().workingSetBytes()).isEqualTo(40_000_000L);
    assertThat(c.memory().rssBytes()).isEqualTo(100L);
    assertThat(c.startTime()).isEqualTo("2025-12-31T23:59:31Z");
    // The pod: the running container and the sandbox together; the exited one not at all.
    assertThat(p.cpu().usageCoreNanoSeconds()).isEqualTo(4_000_000_000L);
    assertThat(p.memory().workingSetBytes()).isEqualTo(41_000_000L);
    // Its processes: one in the sandbox's cgroup, one in the app's (PID pressure ranks on them).
    assertThat(p.processStats().processCount()).isEqualTo(2L);
    assertThat(p.network().name()).isEqualTo("eth0");
    assertThat(p.network().rxBytes()).isEqualTo(12345L);
    assertThat(p.network().txBytes()).isEqualTo(678L);
    assertThat(p.network().interfaces())
        .extracting(Summary.InterfaceStats::name)
        .containsExactly("eth0");

    Summary.NodeStats n = s.node();
    assertThat(n.nodeName()).isEqualTo("node-1");
    assertThat(n.startTime()).isEqualTo("2023-11-14T22:13:20Z");
    assertThat(n.cpu().usageCoreNanoSeconds()).isEqualTo(v2 ? 50_000_000_000L : 50_000_000_000L);
    if (v2) { // no memory in the v2 root: from /proc/meminfo
      assertThat(n.memory().usageBytes()).isEqualTo(6_000_000L * 1024);
      assertThat(n.memory().workingSetBytes()).isEqualTo(5_000_000L * 1024);
    } else {
      assertThat(n.memory().usageBytes()).isEqualTo(4_000_000_000L);
      assertThat(n.memory().workingSetBytes()).isEqualTo(3_000_000_000L);
      assertThat(n.memory().availableBytes()).isEqualTo(5_000_000_000L);
    }
    assertThat(n.network().name()).isEqualTo("ens3");
    assertThat(n.rlimit().maxpid()).isEqualTo(4194304L);
    assertThat(n.rlimit().curproc()).isEqualTo(345L);
    assertThat(n.fs().capacityBytes()).isPositive();
    assertThat(n.runtime().imageFs().capacityBytes()).isEqualTo(n.fs().capacityBytes());
  }

  @Test
  void usageNanoCoresIsTheRateSinceThePreviousSample() {
    FakeHost host = new FakeHost(dir, false);
    host.container(SANDBOX, 0, 0, 0, 1);
    host.container(APP, 1_000_000_000L, 0, 0, 2);
    pods.add(pod(true));
    SummaryProvider provider = provider(host, Duration.ofSeconds(1));
    provider.summary();

    clock.step(Duration.ofSeconds(10));
    host.container(APP, 6_000_000_000L, 0, 0, 2); // 5 s of CPU in 10 s: half a core
    Summary s = provider.summary();

    assertThat(s.pods().get(0).containers().get(0).cpu().usageNanoCores()).isEqualTo(500_000_000L);
    assertThat(s.pods().get(0).cpu().usageNanoCores()).isEqualTo(500_000_000L);
  }

  @Test
  void aSummaryIsServedAgainWithinItsTtl() {
    FakeHost host = new FakeHost(dir, false);
    host.container(SANDBOX, 0, 0, 0, 1);
    host.container(APP, 1_000_000_000L, 0, 0, 2);
    pods.add(pod(true));
    SummaryProvider provider = provider(host, Duration.ofSeconds(1));
    Summary first = provider.summary();

    host.container(APP, 2_000_000_000L, 0, 0, 2);
    clock.step(Duration.ofMillis(999));
    assertThat(provider.summary()).isSameAs(first);
    clock.step(Duration.ofMillis(1));
    assertThat(provider.summary().pods().get(0).containers().get(0).cpu().usageCoreNanoSeconds())
        .isEqualTo(2_000_000_000L);
  }

  @ParameterizedTest(name = "cgroup v2: {0}")
  @ValueSource(booleans = {false, true})
  void theNodeSectionIsTheNodeReadersLatestReadingWithThePodsSystemContainer(boolean v2)
      throws Exception {
    FakeHost host = new FakeHost(dir, v2);
    host.kubepods("kubepods", 4L << 30, 1L << 30, 73_741_824, 7_000_000_000L);
    host.container(SANDBOX, 1, 1, 0, 4242);
    host.container(APP, 1, 1, 0, 4343);
    pods.add(pod(true));
    StatsOptions options =
        new StatsOptions(
            "node-1",
            8_000_000_000L,
            dir,
            () -> null,
            null,
            new StatsOptions.Host(host.cgroup, host.proc),
            Duration.ofSeconds(1),
            new StatsOptions.PodCgroups(uid -> List.of(), "/kubepods"));
    NodeReader node = NodeReader.create(options, clock);
    SummaryProvider provider =
        SummaryProvider.create(options, node, () -> List.copyOf(pods), clock);
    NodeReading reading = node.read(false);

    Summary first = provider.summary();
    JsonNode json = new ObjectMapper().readTree(SummaryProvider.json(first));
    JsonNode n = json.get("node");
    assertThat(n.at("/memory/availableBytes").asLong())
        .isEqualTo(reading.memory().availableBytes());
    assertThat(n.at("/memory/workingSetBytes").asLong())
        .isEqualTo(reading.memory().workingSetBytes());
    assertThat(n.at("/memory/time").asText()).isEqualTo("2026-01-01T00:00:00Z");
    assertThat(n.at("/fs/availableBytes").asLong()).isEqualTo(reading.fs().availableBytes());
    assertThat(n.at("/fs/inodesFree").asLong()).isEqualTo(reading.fs().inodesFree());
    assertThat(n.at("/fs/inodes").asLong()).isEqualTo(reading.fs().inodes());
    assertThat(n.at("/fs/inodesUsed").asLong())
        .isEqualTo(reading.fs().inodes() - reading.fs().inodesFree());
    assertThat(n.at("/runtime/imageFs/capacityBytes").asLong())
        .isEqualTo(reading.imageFs().capacityBytes());
    assertThat(n.at("/rlimit/maxpid").asLong()).isEqualTo(4194304);
    assertThat(n.at("/rlimit/curproc").asLong()).isEqualTo(345);
    assertThat(n.at("/rlimit/time").asText()).isEqualTo("2026-01-01T00:00:00Z");
    JsonNode system = n.get("systemContainers");
    assertThat(system).hasSize(1);
    assertThat(system.at("/0/name").asText()).isEqualTo("pods");
    assertThat(system.at("/0/memory/availableBytes").asLong())
        .isEqualTo((4L << 30) - 1_000_000_000L);
    assertThat(system.at("/0/memory/workingSetBytes").asLong()).isEqualTo(1_000_000_000L);
    assertThat(system.at("/0/cpu/usageCoreNanoSeconds").asLong()).isEqualTo(7_000_000_000L);
    assertThat(system.at("/0").has("rootfs")).isFalse();

    // A memory reading (the eviction manager's, 100 ms later) shows at once; the pods, read
    // once per TTL, are the same.
    clock.step(Duration.ofMillis(100));
    host.kubepods("kubepods", 4L << 30, 2L << 30, 73_741_824, 7_000_000_000L);
    NodeReading fast = node.read(true);
    Summary second = provider.summary();
    assertThat(second.node().systemContainers().get(0).memory().workingSetBytes())
        .isEqualTo(fast.pods().workingSetBytes())
        .isEqualTo((2L << 30) - 73_741_824);
    assertThat(second.pods()).isSameAs(first.pods());
    assertThat(provider.summary()).as("the same reading: the same summary").isSameAs(second);
  }

  @Test
  void podsWithNothingRunningAndContainersWithoutACgroupAreReportedAsFarAsKnown() {
    FakeHost host = new FakeHost(dir, false);
    pods.add(pod(true)); // no cgroups at all: the containers are gone or elsewhere
    pods.add(
        new PodStatus(
            new PodRef("uid-2", "done", "default"),
            List.of(SandboxStatus.of("d".repeat(64), 0, false, "", T0, Map.of())),
            List.of(container("e".repeat(64), "x", ContainerState.EXITED, T0))));

    Summary s = provider(host, Duration.ZERO).summary();

    assertThat(s.pods()).extracting(p -> p.podRef().name()).containsExactly("web");
    Summary.PodStats p = s.pods().get(0);
    assertThat(p.containers().get(0).cpu()).isNull();
    assertThat(p.cpu()).isNull();
    assertThat(p.network()).isNull();
  }

  @Test
  void theJsonHasUpstreamsFieldNamesAndLeavesOutWhatIsUnknown() throws Exception {
    FakeHost host = new FakeHost(dir, false);
    host.container(SANDBOX, 1, 1, 0, 4242);
    host.container(APP, 1, 1, 0, 4343);
    host.network(4242, 1, 2);
    pods.add(pod(true));

    JsonNode json =
        new ObjectMapper().readTree(SummaryProvider.json(provider(host, Duration.ZERO).summary()));

    assertThat(json.at("/node/nodeName").asText()).isEqualTo("node-1");
    assertThat(json.at("/node/runtime/imageFs/capacityBytes").isNumber()).isTrue();
    assertThat(json.at("/pods/0/podRef/uid").asText()).isEqualTo("uid-1");
    assertThat(json.at("/pods/0/containers/0/memory/workingSetBytes").asLong()).isEqualTo(1);
    assertThat(json.at("/pods/0/network/interfaces/0/rxBytes").asLong()).isEqualTo(1);
    assertThat(json.at("/pods/0/containers/0/cpu").has("usageNanoCores")).isFalse();
    assertThat(json.at("/pods/0").has("volume")).isFalse();
    assertThat(json.at("/pods/0/ephemeral-storage/usedBytes").asLong()).isZero();
  }

  @Test
  void volumesAndLogsAreMeasuredOnceAMinuteAndAddUpToTheEphemeralStorage() throws Exception {
    FakeHost host = new FakeHost(dir, false);
    host.container(SANDBOX, 1, 1, 0, 4242);
    host.container(APP, 1, 1, 0, 4343);
    pods.add(pod(true));
    Path volumes = dir.resolve("pods/uid-1/volumes");
    Path cache = Files.createDirectories(volumes.resolve("kubernetes.io~empty-dir/cache"));
    Files.write(cache.resolve("a"), new byte[1000]);
    Files.write(Files.createDirectories(cache.resolve("sub")).resolve("b"), new byte[500]);
    Path creds = Files.createDirectories(volumes.resolve("kubernetes.io~secret/creds"));
    Path data = Files.createDirectories(creds.resolve("..2026_01_01"));
    Files.write(data.resolve("password"), new byte[6]);
    Files.createSymbolicLink(creds.resolve("..data"), data.getFileName());
    Files.createSymbolicLink(creds.resolve("password"), Path.of("..data/password"));
    Path appLogs = Files.createDirectories(dir.resolve("log/pods/default_web_uid-1/app"));
    Files.write(appLogs.resolve("0.log"), new byte[100]);
    Files.write(appLogs.resolve("1.log"), new byte[200]);
    SummaryProvider provider = provider(host, Duration.ZERO);

    JsonNode json = new ObjectMapper().readTree(SummaryProvider.json(provider.summary()));
    JsonNode cacheStats = json.at("/pods/0/volume/0");
    assertThat(cacheStats.path("name").asText()).isEqualTo("cache");
    long dirBytes = Files.size(cache) + Files.size(cache.resolve("sub"));
    assertThat(cacheStats.path("usedBytes").asLong()).isEqualTo(1500 + dirBytes);
    assertThat(cacheStats.path("inodesUsed").asLong()).isEqualTo(4); // 2 dirs, 2 files
    assertThat(cacheStats.path("capacityBytes").asLong()).isPositive();
    JsonNode credStats = json.at("/pods/0/volume/1");
    assertThat(credStats.path("name").asText()).isEqualTo("creds");
    assertThat(credStats.path("inodesUsed").asLong()).isEqualTo(5); // links counted, not followed
    JsonNode logs = json.at("/pods/0/containers/0/logs");
    assertThat(logs.path("usedBytes").asLong()).isEqualTo(300 + Files.size(appLogs));
    assertThat(logs.path("inodesUsed").asLong()).isEqualTo(3); // the dir and two files
    long total =
        cacheStats.path("usedBytes").asLong()
            + credStats.path("usedBytes").asLong()
            + logs.path("usedBytes").asLong();
    assertThat(json.at("/pods/0/ephemeral-storage/usedBytes").asLong()).isEqualTo(total);
    assertThat(json.at("/pods/0/ephemeral-storage/inodesUsed").asLong()).isEqualTo(12);

    Files.write(cache.resolve("c"), new byte[2000]);
    clock.step(Duration.ofSeconds(30));
    assertThat(provider.summary().pods().get(0).volume().get(0).fs().usedBytes())
        .isEqualTo(1500 + dirBytes);
    clock.step(Duration.ofSeconds(31));
    assertThat(provider.summary().pods().get(0).volume().get(0).fs().usedBytes())
        .isEqualTo(3500 + Files.size(cache) + Files.size(cache.resolve("sub")));
  }

  @Test
  void aContainersWritableLayerIsItsRootfsAndCountsInTheEphemeralStorage() throws Exception {
    FakeHost host = new FakeHost(dir, false);
    host.container(SANDBOX, 1, 1, 0, 4242);
    host.container(APP, 1, 1, 0, 4343);
    pods.add(pod(true));
    // Docker's layout, as cAdvisor reads it: the container's mount id names its layer.
    Path engine = dir.resolve("engine");
    Path mounts = Files.createDirectories(engine.resolve("image/overlay2/layerdb/mounts/" + APP));
    Files.writeString(mounts.resolve("mount-id"), "f00d");
    Path diff = Files.createDirectories(engine.resolve("overlay2/f00d/diff"));
    Files.write(Files.createDirectories(diff.resolve("tmp")).resolve("fill"), new byte[4000]);
    Path appLogs = Files.createDirectories(dir.resolve("log/pods/default_web_uid-1/app"));
    Files.write(appLogs.resolve("0.log"), new byte[100]);
    SummaryProvider provider = provider(host, Duration.ZERO, engine);

    Summary.PodStats p = provider.summary().pods().get(0);

    Summary.FsStats rootfs = p.containers().get(0).rootfs();
    long dirs = Files.size(diff) + Files.size(diff.resolve("tmp"));
    assertThat(rootfs.usedBytes()).isEqualTo(4000 + dirs);
    assertThat(rootfs.inodesUsed()).isEqualTo(3); // diff, tmp, fill
    assertThat(rootfs.capacityBytes()).isPositive();
    long logs = 100 + Files.size(appLogs);
    assertThat(p.ephemeralStorage().usedBytes()).isEqualTo(4000 + dirs + logs);
    assertThat(p.ephemeralStorage().inodesUsed()).isEqualTo(5);
  }

  @Test
  void aFreshSummaryMeasuresDisksAgainOnceTheyAreOlderThanAsked() throws Exception {
    FakeHost host = new FakeHost(dir, false);
    host.container(SANDBOX, 1, 1, 0, 4242);
    pods.add(pod(true));
    Path cache =
        Files.createDirectories(dir.resolve("pods/uid-1/volumes/kubernetes.io~empty-dir/cache"));
    SummaryProvider provider = provider(host, Duration.ofSeconds(1));
    long before = provider.summary().pods().get(0).ephemeralStorage().usedBytes();
    Files.write(cache.resolve("fill"), new byte[5000]);

    clock.step(Duration.ofSeconds(4));
    assertThat(provider.fresh(Duration.ofSeconds(5)).pods().get(0).ephemeralStorage().usedBytes())
        .as("measured 4 s ago: young enough")
        .isEqualTo(before);
    clock.step(Duration.ofSeconds(2));
    assertThat(provider.summary().pods().get(0).ephemeralStorage().usedBytes())
        .as("the summary's own figures stay a minute")
        .isEqualTo(before);
    assertThat(provider.fresh(Duration.ofSeconds(5)).pods().get(0).ephemeralStorage().usedBytes())
        .isEqualTo(before + 5000);
  }

  @Test
  void aContainerWithoutALayerOnDiskHasNoRootfs() throws Exception {
    FakeHost host = new FakeHost(dir, false);
    host.container(APP, 1, 1, 0, 4343);
    pods.add(pod(true));
    Path engine = dir.resolve("engine");
    Path mounts = Files.createDirectories(engine.resolve("image/btrfs/layerdb/mounts/" + APP));
    Files.writeString(mounts.resolve("mount-id"), "f00d"); // a driver it does not know
    SummaryProvider provider = provider(host, Duration.ZERO, engine);

    Summary.PodStats p = provider.summary().pods().get(0);

    assertThat(p.containers().get(0).rootfs()).isNull();
    assertThat(p.ephemeralStorage().usedBytes()).isZero();
  }

  /** A pod of {@code uid} in one of the states a node has, with cgroups for what runs. */
  private static PodStatus inState(String state, FakeHost host) {
    PodRef ref = new PodRef("uid-" + state, state, "default");
    String sandbox = Integer.toHexString(state.hashCode()).repeat(8).substring(0, 60) + "5a4d";
    String app = Integer.toHexString(state.hashCode()).repeat(8).substring(0, 60) + "c0de";
    SandboxStatus ready = SandboxStatus.of(sandbox, 0, true, "10.0.0.9", T0, Map.of());
    SandboxStatus stopped = SandboxStatus.of(sandbox, 0, false, "", T0, Map.of());
    ContainerStatus running = container(app, "app", ContainerState.RUNNING, T0);
    ContainerStatus exited = container(app, "app", ContainerState.EXITED, T0);
    switch (state) {
      case "pending" -> {
        return new PodStatus(ref, List.of(), List.of());
      }
      case "initialising", "crashlooping" -> {
        host.container(sandbox, 1, 1, 0, 4000 + state.length());
        return new PodStatus(ref, List.of(ready), List.of(exited));
      }
      case "completed" -> {
        return new PodStatus(ref, List.of(stopped), List.of(exited));
      }
      case "sandboxgone" -> {
        host.container(app, 1, 1, 0, 4100);
        return new PodStatus(ref, List.of(), List.of(running));
      }
      default -> throw new IllegalArgumentException(state);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"pending", "initialising", "crashlooping", "completed", "sandboxgone"})
  void aPodInAnyStateLeavesTheNodeAndTheRunningPodsStatsIntact(String state) {
    FakeHost host = new FakeHost(dir, false);
    host.container(SANDBOX, 1_000_000_000L, 1_000_000, 0, 4242);
    host.container(APP, 3_000_000_000L, 50_000_000, 10_000_000, 4343);
    pods.add(inState(state, host));
    pods.add(pod(true));

    Summary s = provider(host, Duration.ZERO).summary();

    assertThat(s.node().memory().workingSetBytes()).isEqualTo(3_000_000_000L);
    Summary.PodStats web =
        s.pods().stream().filter(p -> p.podRef().name().equals("web")).findFirst().orElseThrow();
    assertThat(web.cpu().usageCoreNanoSeconds()).isEqualTo(4_000_000_000L);
    boolean reported = s.pods().stream().anyMatch(p -> p.podRef().name().equals(state));
    // A pod is reported while its sandbox is up or a container of it runs, as upstream's.
    assertThat(reported)
        .isEqualTo(List.of("initialising", "crashlooping", "sandboxgone").contains(state));
  }

  @Test
  void aCrashLoopingPodIsReportedWithItsSandboxStartAndNoContainers() {
    FakeHost host = new FakeHost(dir, false);
    pods.add(inState("crashlooping", host));

    Summary.PodStats p = provider(host, Duration.ZERO).summary().pods().get(0);

    assertThat(p.startTime()).isEqualTo("2026-01-01T00:00:00Z");
    assertThat(p.containers()).isEmpty();
  }

  @Test
  void aPodWhoseReadingFailsIsLeftOutAndTheRestIsReported() {
    FakeHost host = new FakeHost(dir, false);
    host.container(SANDBOX, 1_000_000_000L, 1_000_000, 0, 4242);
    host.container(APP, 3_000_000_000L, 50_000_000, 10_000_000, 4343);
    // A status the runtime should never give: a running container without a name.
    pods.add(
        new PodStatus(
            new PodRef("uid-bad", "bad", "default"),
            List.of(),
            List.of(
                new ContainerStatus(
                    "f".repeat(64),
                    null,
                    SANDBOX,
                    ContainerState.RUNNING,
                    new ContainerStatus.Times(T0, T0, null),
                    new ContainerStatus.Exit(0, "", ""),
                    new ContainerStatus.Origin("img", "", "h", 0, Map.of()),
                    0))));
    pods.add(pod(true));

    Summary s = provider(host, Duration.ZERO).summary();

    assertThat(s.pods()).extracting(p -> p.podRef().name()).containsExactly("web");
  }
}
