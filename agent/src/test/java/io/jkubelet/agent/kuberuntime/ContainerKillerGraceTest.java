package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The grace period a container is stopped with. */
class ContainerKillerGraceTest {
  private static final Pod POD =
      TestPods.builder("default", "p", "uid")
          .editSpec()
          .withTerminationGracePeriodSeconds(1L)
          .endSpec()
          .build();

  @Test
  void aZeroOverrideIsSigkillAtOnceWhileOtherGracePeriodsKeepUpstreamsTwoSecondMinimum() {
    assertThat(ContainerKiller.gracePeriod(POD, Duration.ZERO, Map.of())).isZero();
    assertThat(ContainerKiller.gracePeriod(POD, Duration.ofSeconds(1), Map.of()))
        .isEqualTo(Duration.ofSeconds(2));
    assertThat(ContainerKiller.gracePeriod(POD, null, Map.of())).isEqualTo(Duration.ofSeconds(2));
    assertThat(ContainerKiller.gracePeriod(POD, Duration.ofSeconds(20), Map.of()))
        .isEqualTo(Duration.ofSeconds(20));
  }
}
