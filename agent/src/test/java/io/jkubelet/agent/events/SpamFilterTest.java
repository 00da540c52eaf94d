package io.jkubelet.agent.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SpamFilterTest {
  private final FakeClock clock = new FakeClock();
  private final SpamFilter.SpamKey key =
      new SpamFilter.SpamKey("kubelet", "node1", "Pod", "ns", "p", "uid-p", "v1");

  private static Event event(String type, String reason) {
    return new EventBuilder().withType(type).withReason(reason).build();
  }

  @Test
  void aFractionalRateRefillsOneTokenPerIntervalUpToTheBurst() {
    SpamFilter filter =
        new SpamFilter(
            clock,
            CorrelatorOptions.upstream()
                .withSpamFilter(Duration.ofMinutes(5), 2)); // 1/300 per second
    assertThat(filter.filter(key, event("Normal", "Pulled"))).isFalse();
    assertThat(filter.filter(key, event("Normal", "Pulled"))).isFalse();
    assertThat(filter.filter(key, event("Normal", "Pulled"))).isTrue();
    clock.step(Duration.ofSeconds(299));
    assertThat(filter.filter(key, event("Normal", "Pulled"))).isTrue();
    clock.step(Duration.ofSeconds(1));
    assertThat(filter.filter(key, event("Normal", "Pulled"))).isFalse();
    assertThat(filter.filter(key, event("Normal", "Pulled"))).isTrue();
  }

  @Test
  void protectedEventsSpendNothing() {
    SpamFilter filter =
        new SpamFilter(
            clock, CorrelatorOptions.defaults().withSpamFilter(Duration.ofMinutes(5), 1));
    assertThat(filter.filter(key, event("Normal", "Pulled"))).as("first of its reason").isFalse();
    assertThat(filter.filter(key, event("Normal", "Created"))).as("first of its reason").isFalse();
    for (int i = 0; i < 5; i++) {
      assertThat(filter.filter(key, event("Warning", "BackOff"))).isFalse();
    }
    assertThat(filter.filter(key, event("Normal", "Pulled"))).as("the one token").isFalse();
    assertThat(filter.filter(key, event("Normal", "Pulled"))).isTrue();
  }
}
