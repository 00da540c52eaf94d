package io.jkubelet.agent.prober;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AttemptStatsTest {
  @Test
  void statsKeepTheMeanAndTheIntervalFurthestFromThePeriod() {
    AttemptStats stats = new AttemptStats(Duration.ofSeconds(10));
    ProbeWorker.Key key = new ProbeWorker.Key("u", "c", ProbeType.LIVENESS);
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    assertThat(stats.snapshot(key))
        .isEqualTo(
            new ProbeWorker.Stats(key, Duration.ofSeconds(10), 0, Duration.ZERO, Duration.ZERO, 0));
    stats.attempted(t);
    stats.attempted(t.plusSeconds(9));
    stats.attempted(t.plusSeconds(22));
    stats.attempted(t.plusSeconds(30));
    stats.skipped();
    assertThat(stats.snapshot(key))
        .isEqualTo(
            new ProbeWorker.Stats(
                key, Duration.ofSeconds(10), 4, Duration.ofSeconds(10), Duration.ofSeconds(13), 1));
  }

  @Test
  void attemptsAreCountedByResult() {
    AttemptStats stats = new AttemptStats(Duration.ofSeconds(10));
    ProbeWorker.Key key = new ProbeWorker.Key("u", "c", ProbeType.READINESS);
    stats.concluded(ProbeResult.SUCCESS);
    stats.concluded(ProbeResult.SUCCESS);
    stats.concluded(ProbeResult.FAILURE);
    stats.concluded(ProbeResult.UNKNOWN);

    assertThat(stats.results(key)).isEqualTo(new ProbeWorker.ResultCounts(key, 2, 1, 1));
  }
}
