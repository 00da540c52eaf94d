package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.util.Lifecycle.Health;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The node's Ready message puts several failures together as upstream's NewAggregate prints. */
class HealthTest {

  @Test
  void allIsOkWhenEveryCheckIs() {
    assertThat(Health.all(List.of(Health.OK, Health.OK))).isEqualTo(Health.OK);
    assertThat(Health.all(List.of())).isEqualTo(Health.OK);
  }

  @Test
  void oneFailureIsItsMessageAlone() {
    assertThat(Health.all(List.of(Health.OK, Health.failing("PLEG is not healthy"))))
        .isEqualTo(Health.failing("PLEG is not healthy"));
  }

  @Test
  void severalFailuresAreListedInBrackets() {
    assertThat(
            Health.all(
                List.of(
                    Health.failing("container runtime is down"),
                    Health.OK,
                    Health.failing("network is not ready"))))
        .isEqualTo(Health.failing("[container runtime is down, network is not ready]"));
  }
}
