package io.jkubelet.agent.eviction;

import static io.jkubelet.agent.eviction.Fakes.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.eviction.Readers.PodUsageReader;
import io.jkubelet.agent.stats.Summary;
import io.jkubelet.agent.stats.Summary.ContainerStats;
import io.jkubelet.agent.stats.Summary.FsStats;
import io.jkubelet.agent.stats.Summary.MemoryStats;
import io.jkubelet.agent.stats.Summary.PodStats;
import io.jkubelet.agent.stats.SummaryProvider;
import io.jkubelet.config.EvictionSettings.Signal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The eviction manager's per-pod readings from the summary shapes that each pod state produces (as
 * {@code CgroupSummaryProvider} writes them), and the ranking on them. A pending or completed pod
 * (no sandbox, no running container) is not in the summary at all; StatsPodStatesE2EIT and
 * PodStatesEvictionE2EIT show the shapes on a real node.
 */
class SummaryPodUsageTest {
  private static final long MI = 1L << 20;
  private static final String T = "2026-01-01T00:00:00Z";

  private static MemoryStats mem(long workingSet) {
    return new MemoryStats(T, null, workingSet, workingSet, workingSet, 0L, 0L);
  }

  private static ContainerStats container(String name, Long workingSet) {
    FsStats logs = new FsStats(T, 1L, 2L, 4096L, null, null, 3L);
    return new ContainerStats(
        name, T, null, workingSet == null ? null : mem(workingSet), null, logs);
  }

  private static PodStats stats(String name, List<ContainerStats> containers, Long workingSet) {
    return new PodStats(
        new Summary.PodReference(name, "default", "uid-" + name),
        T,
        containers,
        new Summary.Usage(null, workingSet == null ? null : mem(workingSet), null),
        null,
        new FsStats(T, 1L, 2L, 4096L, null, null, 3L),
        null);
  }

  /** A provider that gives {@code s}, read or fresh; counts the fresh reads. */
  private static final class Fixed implements SummaryProvider {
    private final Summary s;
    int fresh;

    Fixed(Summary s) {
      this.s = s;
    }

    @Override
    public Summary summary() {
      return s;
    }

    @Override
    public Summary fresh(Duration diskMaxAge) {
      fresh++;
      return s;
    }
  }

  /** One pod per state, each in the shape the summary gives it; pending and completed absent. */
  private static Summary everyState() {
    List<PodStats> pods = new ArrayList<>();
    // Running, and terminating (its container runs until its grace period ends): as running.
    pods.add(stats("running", List.of(container("app", 5 * MI)), 6 * MI));
    pods.add(stats("terminating", List.of(container("app", 2 * MI)), 3 * MI));
    // Crash-looping, or waiting for its image: the sandbox only, no container's stats.
    pods.add(stats("crashing", List.of(), MI));
    // Initialising: the running init container is the pod's one container.
    pods.add(stats("initialising", List.of(container("wait", MI)), 2 * MI));
    // The sandbox gone, its container still running: no network, the container's memory.
    pods.add(stats("sandbox-gone", List.of(container("app", 4 * MI)), 4 * MI));
    // A cgroup gone between the listing and the reading: no memory anywhere.
    pods.add(stats("unread", List.of(container("app", null)), null));
    // Hand-built shapes the provider does not write today: no container list, no storage.
    pods.add(
        new PodStats(
            new Summary.PodReference("bare", "default", "uid-bare"),
            null,
            null,
            new Summary.Usage(null, mem(MI), null),
            null,
            null,
            null));
    pods.add(stats("hog", List.of(container("hog", 400 * MI)), 401 * MI));
    return new Summary(null, pods);
  }

  @Test
  void everyPodStatesSummaryShapeIsReadWithoutFailing() {
    Fixed provider = new Fixed(everyState());
    Map<String, PodUsage> usage = new SummaryPodUsage(provider).read(PodUsageReader.ANY_DISK_AGE);
    assertThat(new SummaryPodUsage(provider).read(Duration.ZERO)).isEqualTo(usage);
    assertThat(provider.fresh).isEqualTo(1);

    assertThat(usage)
        .containsOnlyKeys(
            "uid-running",
            "uid-terminating",
            "uid-crashing",
            "uid-initialising",
            "uid-sandbox-gone",
            "uid-bare",
            "uid-hog");
    assertThat(usage.get("uid-crashing").memoryWorkingSet()).isEqualTo(MI);
    assertThat(usage.get("uid-crashing").containerMemory()).isEmpty();
    assertThat(usage.get("uid-initialising").containerMemory()).containsEntry("wait", MI);
    assertThat(usage.get("uid-sandbox-gone").containerMemory()).containsEntry("app", 4 * MI);
    assertThat(usage.get("uid-bare")).isEqualTo(new PodUsage(MI, Map.of(), PodUsage.Disk.NONE, 0));
    assertThat(usage.get("uid-hog").disk().bytes()).isEqualTo(4096);
    assertThat(usage.get("uid-hog").disk().inodes()).isEqualTo(3);
  }

  @Test
  void aSummaryWithoutPodsOrWithoutASummaryGivesNoUsage() {
    assertThat(new SummaryPodUsage(new Fixed(null)).read(PodUsageReader.ANY_DISK_AGE)).isEmpty();
    assertThat(new SummaryPodUsage(new Fixed(new Summary(null, null))).read(Duration.ZERO))
        .isEmpty();
    assertThat(
            new SummaryPodUsage(new Fixed(new Summary(null, List.of())))
                .read(PodUsageReader.ANY_DISK_AGE))
        .isEmpty();
  }

  @Test
  void theHogRanksFirstAmongPodsWithReadingsAndAnUnreadPodAheadOfAll() {
    Map<String, PodUsage> usage =
        new SummaryPodUsage(new Fixed(everyState())).read(PodUsageReader.ANY_DISK_AGE);
    List<Pod> pods = new ArrayList<>();
    for (String name :
        List.of(
            "running",
            "terminating",
            "crashing",
            "initialising",
            "sandbox-gone",
            "unread",
            "bare",
            "hog")) {
      pods.add(pod(name, "", ""));
    }

    for (Signal s : Signal.values()) {
      List<String> ranked =
          Ranking.rank(s, pods, usage, false).stream().map(p -> p.getMetadata().getName()).toList();
      assertThat(ranked).as(s.toString()).hasSize(pods.size());
    }
    List<String> memory =
        Ranking.rank(Signal.MEMORY_AVAILABLE, pods, usage, false).stream()
            .map(p -> p.getMetadata().getName())
            .toList();
    // Upstream's order: the pod whose reading failed first, then by usage above the request.
    assertThat(memory)
        .containsExactly(
            "unread",
            "hog",
            "running",
            "sandbox-gone",
            "terminating",
            "initialising",
            "crashing",
            "bare");
    assertThat(Ranking.message("memory", pods.get(2), usage.get("uid-crashing")))
        .isEqualTo("The node was low on resource: memory. ");
  }
}
