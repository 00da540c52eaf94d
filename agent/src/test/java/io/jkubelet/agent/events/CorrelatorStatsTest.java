package io.jkubelet.agent.events;

import static io.jkubelet.agent.events.CorrelatorStats.Cause.AGGREGATED;
import static io.jkubelet.agent.events.CorrelatorStats.Cause.DEDUPLICATED;
import static io.jkubelet.agent.events.CorrelatorStats.Cause.DROPPED_SPAM_FILTER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Event;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CorrelatorStatsTest {
  @Test
  void countsAreReadableByCauseAndByReasonAndSnapshotsDoNotMove() {
    CorrelatorStats.Counter counter = new CorrelatorStats.Counter();
    counter.count("Pulled", DEDUPLICATED);
    counter.count("Pulled", DEDUPLICATED);
    counter.count("BackOff", DROPPED_SPAM_FILTER);
    CorrelatorStats stats = counter.snapshot();
    counter.count("BackOff", DROPPED_SPAM_FILTER);

    assertThat(stats.cause(DEDUPLICATED)).isEqualTo(2);
    assertThat(stats.cause(DROPPED_SPAM_FILTER)).isEqualTo(1);
    assertThat(stats.cause(AGGREGATED)).isZero();
    assertThat(stats.reason("Pulled", DEDUPLICATED)).isEqualTo(2);
    assertThat(stats.reason("Pulled", DROPPED_SPAM_FILTER)).isZero();
    assertThat(stats.reason("Nope", AGGREGATED)).isZero();
    assertThat(stats.byCause()).containsOnlyKeys(DEDUPLICATED, DROPPED_SPAM_FILTER);
    assertThat(stats.byReason())
        .containsExactly(
            Map.entry("BackOff", Map.of(DROPPED_SPAM_FILTER, 1L)),
            Map.entry("Pulled", Map.of(DEDUPLICATED, 2L)));
    assertThat(counter.snapshot().cause(DROPPED_SPAM_FILTER)).isEqualTo(2);
  }

  @Test
  void causesHaveTheirOldLabelsAndOnlyADropCauseDrops() {
    assertThat(DROPPED_SPAM_FILTER.label()).isEqualTo("dropped/spam-filter");
    assertThat(AGGREGATED.label()).isEqualTo("aggregated");
    assertThat(DEDUPLICATED.label()).isEqualTo("deduplicated");
    assertThat(new CorrelatorStats(Map.of(), Map.of()).byCause()).isEmpty();
    assertThatThrownBy(() -> new Correlation.Drop(new Event(), AGGREGATED))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
