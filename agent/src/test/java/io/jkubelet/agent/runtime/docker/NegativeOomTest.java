package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What a negative {@code oom_score_adj} becomes, from the probe's answer and from starts. */
class NegativeOomTest {
  private final AtomicInteger probes = new AtomicInteger();

  private NegativeOom with(Optional<Boolean> answer) {
    return new NegativeOom(
        () -> {
          probes.incrementAndGet();
          return answer;
        });
  }

  @Test
  void aHostThatRefusesGetsZeroAndIsAskedOnce() {
    NegativeOom oom = with(Optional.of(false));
    assertThat(oom.effective(875)).isEqualTo(875);
    assertThat(probes).hasValue(0); // a value that is not negative asks nothing
    assertThat(oom.effective(-997)).isZero();
    assertThat(oom.effective(-998)).isZero();
    assertThat(probes).hasValue(1);
  }

  @Test
  void aHostThatAllowsKeepsTheValue() {
    NegativeOom oom = with(Optional.of(true));
    assertThat(oom.effective(-997)).isEqualTo(-997);
    assertThat(oom.refused()).isFalse();
  }

  @Test
  void whenTheProbeCannotTellTheFirstStartTells() {
    NegativeOom oom = with(Optional.empty());
    assertThat(oom.effective(-997)).isEqualTo(-997);
    oom.created("c1", -997);

    assertThat(oom.failed("c1", -997)).as("the first refusal").isTrue();

    assertThat(oom.effective(-997)).isZero();
    assertThat(probes).hasValue(1);
  }

  @Test
  void aStartWithANegativeValueMeansTheHostAllowsIt() {
    NegativeOom oom = with(Optional.empty());
    oom.created("c1", -997);
    oom.started("c1");
    assertThat(oom.failed("c2", -997)).as("c2 was not created unknowing").isFalse();
    assertThat(oom.effective(-997)).isEqualTo(-997);
  }
}
