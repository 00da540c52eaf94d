package io.jkubelet.agent.eviction;

import static io.jkubelet.agent.eviction.Fakes.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Upstream's local storage limits: which pod goes past which, with upstream's messages. */
class LocalStorageLimitsTest {
  private static final long MI = 1L << 20;
  private static final Instant T0 = Instant.parse("2026-11-28T00:00:00Z");

  /** The pod with a container {@code name} limited to {@code limit} ("" for none). */
  private static Pod withContainer(Pod pod, String name, String limit) {
    var c = new ContainerBuilder().withName(name).withImage("busybox").withNewResources();
    if (!limit.isEmpty()) {
      c.addToLimits("ephemeral-storage", new Quantity(limit));
    }
    pod.getSpec().getContainers().add(c.endResources().build());
    return pod;
  }

  private static Pod withEmptyDir(Pod pod, String name, String sizeLimit, String medium) {
    var v = new VolumeBuilder().withName(name).withNewEmptyDir().withMedium(medium);
    if (!sizeLimit.isEmpty()) {
      v.withSizeLimit(new Quantity(sizeLimit));
    }
    pod.getSpec().getVolumes().add(v.endEmptyDir().build());
    return pod;
  }

  private static Pod bare(String name) {
    Pod p = pod(name, "", "");
    p.getSpec().getContainers().clear();
    return p;
  }

  private static PodUsage usage(
      Map<String, PodUsage.ContainerDisk> containers, Map<String, Long> volumes) {
    long all =
        containers.values().stream().mapToLong(c -> c.againstLimit(false)).sum()
            + volumes.values().stream().mapToLong(Long::longValue).sum();
    long layers =
        containers.values().stream().mapToLong(c -> c.layer() == null ? 0 : c.layer()).sum();
    return new PodUsage(0, Map.of(), new PodUsage.Disk(all, 0, layers, 0, containers, volumes), 0);
  }

  private static PodUsage.ContainerDisk disk(long layerMi, long logsMi) {
    return new PodUsage.ContainerDisk(layerMi * MI, logsMi * MI);
  }

  @Test
  void anEmptyDirOverItsSizeLimitComesFirst() {
    Pod p = withEmptyDir(withContainer(bare("p"), "app", "1Mi"), "scratch", "10Mi", "");

    var e =
        LocalStorageLimits.exceeded(
            p, usage(Map.of("app", disk(5, 0)), Map.of("scratch", 11 * MI)), false);

    assertThat(e)
        .contains(
            new LocalStorageLimits.Exceeded(
                "emptydirfs.limit",
                "Usage of EmptyDir volume \"scratch\" exceeds the limit \"10Mi\". "));
  }

  @Test
  void thePodsLayersLogsAndLocalVolumesOverItsContainersLimitsSummed() {
    Pod p =
        withEmptyDir(
            withEmptyDir(
                withContainer(withContainer(bare("p"), "a", "10Mi"), "b", "10Mi"), "data", "", ""),
            "ram",
            "",
            "Memory");

    // 8 + 8 + 3 = 19Mi: within 20Mi, the memory-backed emptyDir not counted.
    var within =
        usage(Map.of("a", disk(8, 0), "b", disk(8, 0)), Map.of("data", 3 * MI, "ram", 50 * MI));
    assertThat(LocalStorageLimits.exceeded(p, within, false)).isEmpty();

    var over = usage(Map.of("a", disk(8, 0), "b", disk(8, 1)), Map.of("data", 4 * MI));
    assertThat(LocalStorageLimits.exceeded(p, over, false))
        .contains(
            new LocalStorageLimits.Exceeded(
                "ephemeralpodfs.limit",
                "Pod ephemeral local storage usage exceeds the total limit of containers 20Mi. "));
  }

  @Test
  void aContainerOverItsOwnLimitWhileThePodIsWithinItsSum() {
    Pod p = withContainer(withContainer(bare("p"), "small", "10Mi"), "big", "100Mi");

    var e =
        LocalStorageLimits.exceeded(
            p, usage(Map.of("small", disk(15, 1), "big", disk(0, 0)), Map.of()), false);

    assertThat(e)
        .contains(
            new LocalStorageLimits.Exceeded(
                "ephemeralcontainerfs.limit",
                "Container small exceeded its local ephemeral storage limit \"10Mi\". "));
  }

  @Test
  void withImagesOnTheirOwnFileSystemWritableLayersCountAgainstNoLimit() {
    Pod p = withContainer(bare("p"), "app", "10Mi");
    var u = usage(Map.of("app", disk(500, 1)), Map.of());

    assertThat(LocalStorageLimits.exceeded(p, u, true)).isEmpty();
    assertThat(LocalStorageLimits.exceeded(p, u, false)).isPresent();
  }

  @Test
  void podsWithoutLimitsAreNotLimitedAndAZeroLimitIsNone() {
    assertThat(LocalStorageLimits.limited(withContainer(bare("p"), "app", ""))).isFalse();
    assertThat(LocalStorageLimits.limited(withContainer(bare("p"), "app", "0"))).isFalse();
    assertThat(LocalStorageLimits.limited(withEmptyDir(bare("p"), "v", "0", ""))).isFalse();
    assertThat(LocalStorageLimits.limited(withEmptyDir(bare("p"), "v", "1Gi", ""))).isTrue();
    assertThat(LocalStorageLimits.limited(withContainer(bare("p"), "app", "1Gi"))).isTrue();
  }

  @Test
  void eachPeriodEachPodOverALimitIsEvictedOnceAndCriticalOnesNever() {
    LocalStorageLimits limits = new LocalStorageLimits();
    Pod over = withContainer(bare("over"), "app", "1Mi");
    Pod critical = withContainer(bare("critical"), "app", "1Mi");
    critical.getSpec().setPriority(Ranking.SYSTEM_CRITICAL_PRIORITY);
    Pod unlimited = withContainer(bare("unlimited"), "app", "");
    Map<String, PodUsage> used = new HashMap<>();
    for (Pod p : List.of(over, critical, unlimited)) {
      used.put(p.getMetadata().getUid(), usage(Map.of("app", disk(5, 0)), Map.of()));
    }
    List<String> evicted = new ArrayList<>();
    var active = List.of(over, critical, unlimited);

    assertThat(
            limits.check(
                T0,
                () -> active,
                () -> used,
                () -> false,
                (p, w) -> evicted.add(p.getMetadata().getName())))
        .containsExactly(over);
    assertThat(
            limits.check(
                T0.plusSeconds(5),
                () -> active,
                () -> used,
                () -> false,
                (p, w) -> evicted.add("again")))
        .as("within the period")
        .isEmpty();
    assertThat(
            limits.check(
                T0.plusSeconds(10),
                () -> active,
                () -> used,
                () -> false,
                (p, w) -> evicted.add("again")))
        .as("evicted once")
        .isEmpty();
    assertThat(evicted).containsExactly("over");
  }

  @Test
  void withoutALimitedPodNoUsageIsRead() {
    LocalStorageLimits limits = new LocalStorageLimits();
    List<Pod> active = List.of(withContainer(bare("unlimited"), "app", ""));

    List<Pod> evicted =
        limits.check(
            T0,
            () -> active,
            () -> {
              throw new AssertionError("usage read");
            },
            () -> false,
            (p, w) -> {});

    assertThat(evicted).isEmpty();
  }
}
