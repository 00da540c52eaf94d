package io.jkubelet.agent.prober;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ResultRunTest {
  private static final ProbeSettings TWO_AND_THREE =
      new ProbeSettings(Duration.ZERO, Duration.ofSeconds(10), Duration.ofSeconds(1), 2, 3);

  @Test
  void aResultIsPublishedOnceItsRunReachesItsThresholdAndAfter() {
    ResultRun run = new ResultRun(TWO_AND_THREE);
    assertThat(run.add(ProbeResult.SUCCESS)).isFalse();
    assertThat(run.add(ProbeResult.SUCCESS)).isTrue();
    assertThat(run.add(ProbeResult.SUCCESS)).isTrue();
    assertThat(run.add(ProbeResult.FAILURE)).isFalse();
    assertThat(run.add(ProbeResult.FAILURE)).isFalse();
    assertThat(run.add(ProbeResult.SUCCESS)).as("a change starts a new run").isFalse();
    assertThat(run.add(ProbeResult.FAILURE)).isFalse();
    assertThat(run.add(ProbeResult.FAILURE)).isFalse();
    assertThat(run.add(ProbeResult.FAILURE)).isTrue();
  }

  @Test
  void aSeedCountsAsCrossedAndClearKeepsTheLastResult() {
    ResultRun run = new ResultRun(TWO_AND_THREE);
    run.seed(ProbeResult.SUCCESS);
    assertThat(run.add(ProbeResult.SUCCESS)).isTrue();
    run.clear();
    assertThat(run.add(ProbeResult.SUCCESS)).as("the run starts over").isFalse();
    run.reset();
    assertThat(run.add(ProbeResult.SUCCESS)).isFalse();
  }
}
