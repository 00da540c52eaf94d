package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.runtime.PullProgress;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PullTallyTest {
  private final Instant t0 = Instant.parse("2026-11-28T10:00:00Z");
  private final PullTally tally = new PullTally(t0);

  private long add(String id, String status, long current, long total, int second) {
    return tally.add(new PullProgress(id, status, current, total), t0.plusSeconds(second));
  }

  @Test
  void layersAreSummedAndTheTotalIsALowerBoundWhileALayerWaits() {
    add("2.8.2", "Pulling from jkubelet/registry", 0, 0, 0);
    add("aaa", "Already exists", 0, 0, 0);
    add("bbb", "Pulling fs layer", 0, 0, 0);
    add("ccc", "Waiting", 0, 0, 0);
    assertThat(add("bbb", "Downloading", 20_000_000, 50_000_000, 10)).isEqualTo(20_000_000);

    PullTally.Snapshot s = tally.snapshot();
    assertThat(s.bytes()).isEqualTo(20_000_000);
    assertThat(s.total()).isEqualTo(50_000_000);
    assertThat(s.totalKnown()).as("ccc's size is not known yet").isFalse();
    assertThat(s.layers()).isEqualTo(3);
    assertThat(s.layersDone()).isEqualTo(1);
    assertThat(s.latest()).isEqualTo("bbb: Downloading 20MB/50MB");
    assertThat(s.describe(t0.plusSeconds(10)))
        .isEqualTo("20MB of at least 50MB (1 of 3 layers done), 2MB/s, about 15s left");
  }

  @Test
  void aDownloadedLayerCountsWholeAndAPulledOneIsDone() {
    add("bbb", "Downloading", 1_000_000, 4_000_000, 1);
    assertThat(add("bbb", "Download complete", 0, 0, 2)).isEqualTo(3_000_000);
    add("bbb", "Extracting", 500_000, 4_000_000, 3);
    add("bbb", "Pull complete", 0, 0, 4);
    PullTally.Snapshot s = tally.snapshot();
    assertThat(s.bytes()).isEqualTo(4_000_000);
    assertThat(s.totalKnown()).isTrue();
    assertThat(s.layersDone()).isEqualTo(1);
    assertThat(s.lastProgress()).isEqualTo(t0.plusSeconds(4));
    assertThat(s.describe(t0.plusSeconds(4))).isEqualTo("4MB of 4MB (1 of 1 layers done), 1MB/s");
  }

  @Test
  void beforeAnyLayerItSaysSo() {
    assertThat(tally.snapshot().describe(t0.plusSeconds(10))).isEqualTo("no progress yet");
    add("latest", "Pulling from library/busybox", 0, 0, 1);
    assertThat(tally.snapshot().describe(t0.plusSeconds(10)))
        .isEqualTo("no layer yet (latest: Pulling from library/busybox)");
    assertThat(tally.snapshot().estimate(t0.plusSeconds(10))).isNull();
  }

  @Test
  void sizesReadAsDockersHumanSize() {
    assertThat(PullTally.humanSize(512)).isEqualTo("512B");
    assertThat(PullTally.humanSize(12_345_678)).isEqualTo("12.35MB");
    assertThat(PullTally.humanSize(2_000_000_000L)).isEqualTo("2GB");
    assertThat(PullTally.humanSize(1_500)).isEqualTo("1.5kB");
  }

  @Test
  void theRateIsTheAverageSinceThePullBegan() {
    add("bbb", "Downloading", 30_000_000, 90_000_000, 20);
    PullTally.Snapshot s = tally.snapshot();
    assertThat(s.bytesPerSecond(t0.plusSeconds(30))).isEqualTo(1_000_000);
    assertThat(s.estimate(t0.plusSeconds(30))).isEqualTo(Duration.ofSeconds(60));
  }
}
