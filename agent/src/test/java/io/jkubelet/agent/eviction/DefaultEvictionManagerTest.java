package io.jkubelet.agent.eviction;

import static io.jkubelet.agent.eviction.Fakes.obs;
import static io.jkubelet.agent.eviction.Fakes.pod;
import static io.jkubelet.agent.eviction.Fakes.usage;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.eviction.Readers.PodUsageReader;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.config.EvictionSettings;
import io.jkubelet.config.EvictionSettings.Signal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** One iteration of the manager ({@code runOnce}) driven by hand-made readings. */
class DefaultEvictionManagerTest {
  private static final long GI = 1L << 30;
  private static final long MI = 1L << 20;

  private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final Fakes.Signals signals = new Fakes.Signals();
  private final Fakes.Killer killer = new Fakes.Killer();
  private final Fakes.Recorder recorder = new Fakes.Recorder();
  private final Fakes.Gc gc = new Fakes.Gc();
  private final Fakes.Listener listener = new Fakes.Listener();
  private final List<Pod> active = new ArrayList<>();
  private final Map<String, PodUsage> usage = new HashMap<>();
  private boolean dedicatedImageFs;
  private final List<Duration> usageReads = new ArrayList<>();
  private final Set<String> stopped = new HashSet<>();
  private Duration rankingTakes = Duration.ZERO;

  private DefaultEvictionManager manager(EvictionSettings settings) {
    return manager(settings, 0);
  }

  private DefaultEvictionManager manager(EvictionSettings settings, int maxGrace) {
    EvictionOptions options =
        EvictionOptions.of(
            settings.thresholds(true), settings.evictionPressureTransitionPeriod(), maxGrace);
    return new DefaultEvictionManager(
        options,
        new EvictionManager.Parts(
            "node-a",
            signals,
            freshDisk -> {
              usageReads.add(freshDisk);
              clock.step(rankingTakes);
              return Map.copyOf(usage);
            },
            () -> dedicatedImageFs,
            new EvictionManager.Pods(
                () -> List.copyOf(active),
                p -> stopped.contains(p.getMetadata().getUid()),
                p -> Optional.empty(),
                killer),
            new EvictionManager.Reclaim(gc, gc),
            recorder,
            listener),
        clock,
        new FakeSchedulers(clock));
  }

  /** Readings of memory: {@code available} of 16Gi; also sets what a fresh read returns. */
  private Map<Signal, Observation> memory(long available) {
    Observation o = obs(available, 16 * GI, clock.instant());
    signals.now.put(Signal.MEMORY_AVAILABLE, o);
    Map<Signal, Observation> m = new EnumMap<>(Signal.class);
    m.put(Signal.MEMORY_AVAILABLE, o);
    return m;
  }

  private Map<Signal, Observation> nodefs(long available, long capacity) {
    return disk(Signal.NODEFS_AVAILABLE, available, capacity);
  }

  private Map<Signal, Observation> disk(Signal signal, long available, long capacity) {
    Observation o = obs(available, capacity, clock.instant());
    signals.now.put(signal, o);
    return Map.of(signal, o);
  }

  private void running(Pod pod, long bytes) {
    active.add(pod);
    usage.put(pod.getMetadata().getUid(), usage(bytes));
  }

  @Test
  void aHardMemoryThresholdEvictsTheBestEffortPodAtOnceWithUpstreamsStatusAndEvents() {
    var m = manager(EvictionSettings.DEFAULTS);
    Pod guaranteed = pod("guaranteed", "1Gi", "1Gi");
    Pod burstable = pod("burstable", "100Mi", "");
    Pod bestEffort = pod("besteffort", "", "");
    running(guaranteed, 900 * MI);
    running(burstable, 50 * MI);
    running(bestEffort, 300 * MI);

    Optional<Pod> evicted = m.runOnce(memory(99 * MI));

    assertThat(evicted).contains(bestEffort);
    assertThat(killer.killed).hasSize(1);
    Fakes.Killed k = killer.killed.get(0);
    assertThat(k.grace()).isEqualTo(Duration.ZERO);
    assertThat(k.status().getPhase()).isEqualTo("Failed");
    assertThat(k.status().getReason()).isEqualTo("Evicted");
    assertThat(k.status().getMessage())
        .isEqualTo(
            "The node was low on resource: memory. Container app was using 300Mi, which exceeds"
                + " its request of 0. ");
    assertThat(recorder.events)
        .containsExactly(
            new Fakes.Event(
                "Node",
                "node-a",
                EventType.Warning,
                "EvictionThresholdMet",
                "Attempting to reclaim memory"),
            new Fakes.Event(
                "Pod", "besteffort", EventType.Warning, "Evicted", k.status().getMessage()));
    assertThat(m.nodeConditions()).containsExactly("MemoryPressure");
    assertThat(listener.evicted).containsExactly("memory.available");
    assertThat(listener.ages).containsExactly(0.0);
  }

  @Test
  void aPodThatRunsNothingIsRankedByItsZeroUsageNotFirstAsAPodWhoseReadingFailed() {
    var m = manager(EvictionSettings.DEFAULTS);
    // Pending on a missing volume: no sandbox, no container, so not in the summary.
    Pod pending = pod("pending", "", "");
    active.add(pending);
    stopped.add(pending.getMetadata().getUid());
    Pod hog = pod("hog", "", "");
    running(hog, 400 * MI);
    running(pod("small", "", ""), 10 * MI);

    assertThat(m.runOnce(memory(99 * MI))).contains(hog);
    assertThat(killer.killed)
        .extracting(k -> k.pod().getMetadata().getName())
        .containsExactly("hog");
  }

  @Test
  void aRunningPodWithoutAReadingIsStillRankedFirstAsUpstream() {
    var m = manager(EvictionSettings.DEFAULTS);
    Pod unread = pod("unread", "64Mi", "64Mi");
    active.add(unread); // runs (not stopped), but its reading is missing
    running(pod("hog", "", ""), 400 * MI);

    assertThat(m.runOnce(memory(99 * MI))).contains(unread);
  }

  @Test
  void rankingPutsPodsOverTheirRequestFirstThenLowerPriorityThenMostAboveRequest() {
    var m = manager(EvictionSettings.DEFAULTS);
    Pod underRequest = pod("under", "1Gi", "");
    Pod over = pod("over", "100Mi", "");
    Pod overMore = pod("over-more", "100Mi", "");
    Pod overImportant = pod("over-important", "", "");
    overImportant.getSpec().setPriority(1000);
    running(underRequest, 900 * MI);
    running(over, 200 * MI);
    running(overMore, 400 * MI);
    running(overImportant, 2 * GI);

    List<Pod> ranked = Ranking.rank(Signal.MEMORY_AVAILABLE, active, usage, false);

    assertThat(ranked).containsExactly(overMore, over, overImportant, underRequest);
    assertThat(m.runOnce(memory(10 * MI))).contains(overMore);
  }

  @Test
  void theConditionClearsOnlyAfterThePressureTransitionPeriod() {
    var m = manager(eviction(Map.of(), Map.of(), Map.of(), Duration.ofSeconds(30)));
    m.runOnce(memory(50 * MI));
    assertThat(m.nodeConditions()).containsExactly("MemoryPressure");

    clock.step(Duration.ofSeconds(1));
    m.runOnce(memory(8 * GI));
    clock.step(Duration.ofSeconds(28));
    m.runOnce(memory(8 * GI));
    assertThat(m.nodeConditions()).containsExactly("MemoryPressure");

    clock.step(Duration.ofSeconds(1));
    m.runOnce(memory(8 * GI));
    assertThat(m.nodeConditions()).isEmpty();
  }

  @Test
  void aSoftThresholdWaitsItsGracePeriodAndGivesThePodAtMostTheMaximum() {
    EvictionSettings s =
        eviction(
            Map.of("memory.available", "1Gi"),
            Map.of("memory.available", "10s"),
            Map.of(),
            Duration.ofMinutes(5));
    var m = manager(s, 20);
    Pod patient = pod("patient", "", "");
    patient.getSpec().setTerminationGracePeriodSeconds(5L);
    running(patient, 300 * MI);

    assertThat(m.runOnce(memory(512 * MI))).isEmpty();
    assertThat(m.nodeConditions()).containsExactly("MemoryPressure");
    clock.step(Duration.ofSeconds(9));
    assertThat(m.runOnce(memory(512 * MI))).isEmpty();
    clock.step(Duration.ofSeconds(1));
    assertThat(m.runOnce(memory(512 * MI))).contains(patient);

    // min(its own 5 s, the maximum 20 s), where upstream would give it 20 s (kubernetes#64530).
    assertThat(killer.killed.get(0).grace()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void withoutAMaximumASoftEvictionGivesThePodItsOwnGracePeriod() {
    EvictionSettings s =
        eviction(
            Map.of("memory.available", "1Gi"),
            Map.of("memory.available", "1s"),
            Map.of(),
            Duration.ofMinutes(5));
    var m = manager(s, 0);
    Pod patient = pod("patient", "", "");
    patient.getSpec().setTerminationGracePeriodSeconds(7L);
    running(patient, 300 * MI);

    assertThat(m.runOnce(memory(512 * MI))).isEmpty();
    clock.step(Duration.ofSeconds(1));
    assertThat(m.runOnce(memory(512 * MI))).contains(patient);
    // evictionMaxPodGracePeriod 0 sets no maximum; upstream would kill it with 0 (then 2 s).
    assertThat(killer.killed.get(0).grace()).isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void aCriticalPodIsNeverEvictedAndTheManagerWaitsBeforeTryingAgain() {
    var m = manager(EvictionSettings.DEFAULTS);
    Pod mirror = pod("static", "", "");
    mirror.getMetadata().setAnnotations(Map.of("kubernetes.io/config.source", "file"));
    Pod system = pod("system", "", "");
    system.getSpec().setPriority(2_000_000_000);
    running(mirror, GI);
    running(system, GI);

    assertThat(m.runOnce(memory(10 * MI))).isEmpty();
    clock.step(Duration.ofSeconds(1));
    assertThat(m.runOnce(memory(10 * MI))).isEmpty();

    assertThat(killer.killed).isEmpty();
    assertThat(recorder.events).hasSize(1); // one attempt, then quiet for 10 s
    clock.step(Duration.ofSeconds(10));
    m.runOnce(memory(10 * MI));
    assertThat(recorder.events).hasSize(2);
  }

  @Test
  void aNonsensicalReadingIsNeverActedOn() {
    var m = manager(EvictionSettings.DEFAULTS);
    running(pod("besteffort", "", ""), 300 * MI);
    signals.now.put(Signal.MEMORY_AVAILABLE, obs(-5 * GI, 16 * GI, clock.instant()));

    Map<Signal, Observation> read = m.read(true);
    assertThat(m.runOnce(read)).isEmpty();
    signals.now.put(Signal.MEMORY_AVAILABLE, obs(20 * GI, 16 * GI, clock.instant()));
    assertThat(m.runOnce(m.read(true))).isEmpty();

    assertThat(read).doesNotContainKey(Signal.MEMORY_AVAILABLE);
    assertThat(m.nodeConditions()).isEmpty();
    assertThat(killer.killed).isEmpty();
  }

  @Test
  void aFreshReadingThatNoLongerMeetsTheThresholdEvictsNothingAndSaysNothing() {
    var m = manager(EvictionSettings.DEFAULTS);
    running(pod("besteffort", "", ""), 300 * MI);
    Map<Signal, Observation> stale = memory(50 * MI);
    memory(4 * GI); // what the manager reads again just before acting

    assertThat(m.runOnce(stale)).isEmpty();
    assertThat(killer.killed).isEmpty();
    // No "Attempting to reclaim memory" for a threshold that is not met (it came each iteration).
    assertThat(recorder.events).isEmpty();
  }

  @Test
  void aFreshDiskReadingThatNoLongerMeetsTheThresholdReclaimsNothing() {
    var m = manager(EvictionSettings.DEFAULTS);
    running(pod("writer", "", ""), 10 * MI);
    Map<Signal, Observation> stale = nodefs(GI, 100 * GI);
    nodefs(50 * GI, 100 * GI); // what the manager reads again just before acting

    assertThat(m.runOnce(stale)).isEmpty();
    assertThat(gc.calls).isEmpty();
    assertThat(recorder.events).isEmpty();
  }

  @Test
  void diskPressureReclaimsContainersAndImagesFirstAndEvictsNothingWhenThatSuffices() {
    var m = manager(EvictionSettings.DEFAULTS);
    running(pod("writer", "", ""), 10 * MI);
    Map<Signal, Observation> full = nodefs(GI, 100 * GI);
    gc.onCall = () -> nodefs(50 * GI, 100 * GI);

    assertThat(m.runOnce(full)).isEmpty();

    assertThat(gc.calls).containsExactly("containers", "images");
    assertThat(killer.killed).isEmpty();
    assertThat(m.nodeConditions()).containsExactly("DiskPressure");
    assertThat(recorder.events.get(0).message())
        .isEqualTo("Attempting to reclaim ephemeral-storage");
  }

  @Test
  void diskPressureEvictsTheLargestUserWhenReclaimIsNotEnough() {
    var m = manager(EvictionSettings.DEFAULTS);
    Pod small = pod("small", "", "");
    Pod big = pod("big", "", "");
    running(small, 10 * MI);
    running(big, 800 * MI);

    assertThat(m.runOnce(nodefs(GI, 100 * GI))).contains(big);
    assertThat(gc.calls).containsExactly("containers", "images");
    assertThat(killer.killed.get(0).status().getMessage())
        .isEqualTo("The node was low on resource: ephemeral-storage. ");
  }

  /** A pod whose containers wrote {@code layer} bytes to their writable layers, and more. */
  private Pod storing(String name, long layer, long volumes) {
    Pod pod = pod(name, "", "");
    active.add(pod);
    usage.put(
        pod.getMetadata().getUid(),
        new PodUsage(
            MI,
            Map.of("app", MI),
            new PodUsage.Disk(
                layer + volumes,
                20,
                layer,
                10,
                Map.of("app", new PodUsage.ContainerDisk(layer, 0L)),
                Map.of("data", volumes)),
            1));
    return pod;
  }

  @Test
  void withImagesOnTheirOwnFileSystemNodefsPressureRanksByVolumesAndLogsAndKeepsImages() {
    dedicatedImageFs = true;
    var m = manager(EvictionSettings.DEFAULTS);
    Pod layerWriter = storing("layer-writer", 900 * MI, 0);
    Pod volumeWriter = storing("volume-writer", 0, 300 * MI);

    assertThat(m.runOnce(nodefs(GI, 100 * GI))).contains(volumeWriter);
    assertThat(gc.calls).containsExactly("containers");
    assertThat(usageReads)
        .as("disk usage measured since the threshold was seen, not a minute old")
        .containsExactly(Duration.ZERO);
    assertThat(killer.killed).extracting(Fakes.Killed::pod).containsExactly(volumeWriter);
    assertThat(active).contains(layerWriter);
  }

  @Test
  void withImagesOnTheirOwnFileSystemImagefsPressureEvictsTheLayerWriterNamingItsContainer() {
    dedicatedImageFs = true;
    var m = manager(EvictionSettings.DEFAULTS);
    Pod layerWriter = storing("layer-writer", 900 * MI, 0);
    storing("volume-writer", 0, 1200 * MI);

    assertThat(m.runOnce(disk(Signal.IMAGEFS_AVAILABLE, GI, 100 * GI))).contains(layerWriter);
    assertThat(gc.calls).containsExactly("containers", "images");
    assertThat(killer.killed.get(0).status().getMessage())
        .isEqualTo(
            "The node was low on resource: ephemeral-storage. Container app was using 900Mi,"
                + " which exceeds its request of 0. ");
  }

  @Test
  void onOneFileSystemForAllDiskPressureRanksByEverythingAPodStores() {
    var m = manager(EvictionSettings.DEFAULTS);
    storing("layer-writer", 900 * MI, 0);
    Pod both = storing("both", 600 * MI, 600 * MI);

    assertThat(m.runOnce(nodefs(GI, 100 * GI))).contains(both);
    assertThat(gc.calls).containsExactly("containers", "images");
  }

  @Test
  void diskPressureRanksOnUsageMeasuredSinceTheThresholdWasFirstSeenAndAtMostFiveSecondsAgo() {
    var m = manager(EvictionSettings.DEFAULTS);
    List<Pod> writers = new ArrayList<>();
    for (int i = 3; i >= 1; i--) {
      writers.add(storing("writer-" + i, i * 300 * MI, 0));
    }
    for (Duration step : List.of(Duration.ofSeconds(3), Duration.ofSeconds(10))) {
      Pod evicted = m.runOnce(nodefs(GI, 100 * GI)).orElseThrow();
      stopped.add(evicted.getMetadata().getUid());
      active.remove(evicted);
      clock.step(step);
    }
    assertThat(m.runOnce(nodefs(GI, 100 * GI))).contains(writers.get(2));

    // The first ranking measures at once: a container that crossed the threshold in the second
    // before counts. The pressure goes on: what was measured since it began will do, up to 5 s.
    assertThat(usageReads)
        .containsExactly(Duration.ZERO, Duration.ofSeconds(3), DefaultEvictionManager.FRESH_DISK);
    assertThat(killer.killed).extracting(Fakes.Killed::pod).containsExactlyElementsOf(writers);
  }

  @Test
  void memoryPressureRanksOnTheSummarysUsageWithoutMeasuringDisksAgain() {
    var m = manager(EvictionSettings.DEFAULTS);
    running(pod("hog", "", ""), 900 * MI);

    m.runOnce(memory(10 * MI));

    assertThat(usageReads).containsExactly(PodUsageReader.ANY_DISK_AGE);
  }

  @Test
  void aPodOverItsEphemeralStorageLimitIsEvictedAtOnceWithoutAnyPressure() {
    var m = manager(EvictionSettings.DEFAULTS);
    Pod limited = storing("limited", 30 * MI, 0);
    limited
        .getSpec()
        .getContainers()
        .get(0)
        .getResources()
        .getLimits()
        .put("ephemeral-storage", new io.fabric8.kubernetes.api.model.Quantity("20Mi"));
    storing("unlimited", 900 * MI, 0);

    m.tick();

    assertThat(killer.killed).extracting(Fakes.Killed::pod).containsExactly(limited);
    Fakes.Killed k = killer.killed.get(0);
    assertThat(k.grace()).isEqualTo(Duration.ZERO);
    assertThat(k.status().getReason()).isEqualTo("Evicted");
    assertThat(k.status().getMessage())
        .isEqualTo(
            "Pod ephemeral local storage usage exceeds the total limit of containers 20Mi. ");
    assertThat(recorder.events)
        .containsExactly(
            new Fakes.Event(
                "Pod", "limited", EventType.Warning, "Evicted", k.status().getMessage()));
    assertThat(listener.evicted).containsExactly("ephemeralpodfs.limit");
    assertThat(m.nodeConditions()).isEmpty();
  }

  @Test
  void theNextEvictionWaitsUntilTheEvictedPodHasStopped() {
    var m = manager(EvictionSettings.DEFAULTS);
    Pod first = pod("first", "", "");
    Pod second = pod("second", "", "");
    running(first, 500 * MI);
    running(second, 400 * MI);

    assertThat(m.runOnce(memory(10 * MI))).contains(first);
    active.remove(first);
    clock.step(Duration.ofMillis(100));
    assertThat(m.runOnce(memory(10 * MI))).isEmpty();
    stopped.add("uid-first");
    clock.step(Duration.ofMillis(100));
    assertThat(m.runOnce(memory(10 * MI))).contains(second);
  }

  @Test
  void aPodThatDoesNotStopHoldsTheNextEvictionForItsKillAndCleanupCountedFromTheEviction() {
    // As upstream: the kill's own wait (grace 0: 10 s), then 30 s for the cleanup. Counted from the
    // eviction, not from the round's start: on the bed's TCG guest the ranking took 18 s, and the
    // next pod, a Burstable one within its requests, was evicted 14 s after the first.
    var m = manager(EvictionSettings.DEFAULTS);
    Pod first = pod("first", "", "");
    Pod second = pod("second", "", "");
    running(first, 500 * MI);
    running(second, 400 * MI);
    rankingTakes = Duration.ofSeconds(18);

    assertThat(m.runOnce(memory(10 * MI))).contains(first);
    active.remove(first);
    rankingTakes = Duration.ZERO;
    clock.step(Duration.ofSeconds(39));
    assertThat(m.runOnce(memory(10 * MI))).as("39 s after the eviction").isEmpty();
    clock.step(Duration.ofSeconds(1));
    assertThat(m.runOnce(memory(10 * MI))).as("40 s after the eviction").contains(second);
  }

  @Test
  void killWaitIsUpstreamsKillPodNowTimeout() {
    assertThat(EvictionOptions.killWait(0)).isEqualTo(Duration.ofSeconds(10));
    assertThat(EvictionOptions.killWait(30)).isEqualTo(Duration.ofSeconds(45));
  }

  @Test
  void minimumReclaimKeepsTheThresholdMetUntilItIsFreed() {
    var m =
        manager(
            eviction(
                Map.of(), Map.of(), Map.of("memory.available", "500Mi"), Duration.ofSeconds(1)));
    m.runOnce(memory(50 * MI));
    clock.step(Duration.ofSeconds(1));
    m.runOnce(memory(300 * MI)); // above 100Mi, below 100Mi + 500Mi
    assertThat(m.nodeConditions()).containsExactly("MemoryPressure");
    clock.step(Duration.ofSeconds(1));
    m.runOnce(memory(700 * MI));
    clock.step(Duration.ofSeconds(1));
    m.runOnce(memory(700 * MI));
    assertThat(m.nodeConditions()).isEmpty();
  }

  @Test
  void minimumReclaimEvictsTheNextPodUntilItIsFreedThoughTheFreshReadingIsAboveTheThreshold() {
    var m =
        manager(
            eviction(
                Map.of(), Map.of(), Map.of("memory.available", "500Mi"), Duration.ofMinutes(5)));
    Pod first = pod("first", "", "");
    Pod second = pod("second", "", "");
    running(first, 500 * MI);
    running(second, 400 * MI);

    assertThat(m.runOnce(memory(50 * MI))).contains(first);
    active.remove(first);
    stopped.add("uid-first");
    clock.step(Duration.ofMillis(100));
    // Above 100Mi, below 100Mi + 500Mi, on the iteration's reading and on the fresh one alike.
    assertThat(m.runOnce(memory(300 * MI))).contains(second);
    active.remove(second);
    stopped.add("uid-second");
    clock.step(Duration.ofMillis(100));
    assertThat(m.runOnce(memory(700 * MI))).isEmpty();
  }

  @Test
  void admissionUnderPressureIsUpstreams() {
    var m = manager(EvictionSettings.DEFAULTS);
    Pod bestEffort = pod("be", "", "");
    Pod burstable = pod("bu", "100Mi", "");
    Pod tolerating = pod("tol", "", "");
    tolerating
        .getSpec()
        .setTolerations(
            List.of(
                new TolerationBuilder()
                    .withKey("node.kubernetes.io/memory-pressure")
                    .withOperator("Exists")
                    .withEffect("NoSchedule")
                    .build()));
    Pod staticPod = pod("static", "", "");
    staticPod.getMetadata().setAnnotations(Map.of("kubernetes.io/config.source", "file"));
    assertThat(m.admit(bestEffort)).isEmpty();

    m.runOnce(memory(10 * MI));
    assertThat(m.admit(bestEffort)).contains("The node had condition: [MemoryPressure]. ");
    assertThat(m.admit(burstable)).isEmpty();
    assertThat(m.admit(tolerating)).isEmpty();
    assertThat(m.admit(staticPod)).isEmpty();

    m.runOnce(nodefs(GI, 100 * GI));
    assertThat(m.admit(burstable))
        .contains("The node had condition: [MemoryPressure DiskPressure]. ");
    assertThat(m.admit(staticPod)).isEmpty();
  }

  /** Upstream's hard thresholds, with these soft ones, grace periods, reclaims and transition. */
  private static EvictionSettings eviction(
      Map<String, String> soft,
      Map<String, String> grace,
      Map<String, String> reclaim,
      Duration transition) {
    return new EvictionSettings(EvictionSettings.DEFAULT_HARD, soft, grace, reclaim, transition, 0);
  }
}
