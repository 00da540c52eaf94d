package io.jkubelet.agent.prober;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProbeResultsManagerTest {
  @Test
  void publishesOnlyChanges() {
    List<ProberEvent> events = new ArrayList<>();
    ResultsManager m = new ResultsManager(events::add);
    assertThat(m.get("c1", ProbeType.READINESS)).isEmpty();

    assertThat(m.set("p", "app", "c1", ProbeType.READINESS, ProbeResult.FAILURE)).isTrue();
    assertThat(m.set("p", "app", "c1", ProbeType.READINESS, ProbeResult.FAILURE)).isFalse();
    assertThat(m.set("p", "app", "c1", ProbeType.LIVENESS, ProbeResult.FAILURE)).isTrue();
    assertThat(m.set("p", "app", "c1", ProbeType.READINESS, ProbeResult.SUCCESS)).isTrue();

    assertThat(events)
        .containsExactly(
            new ProberEvent.ResultChange(
                "p", "app", "c1", ProbeType.READINESS, ProbeResult.FAILURE),
            new ProberEvent.ResultChange("p", "app", "c1", ProbeType.LIVENESS, ProbeResult.FAILURE),
            new ProberEvent.ResultChange(
                "p", "app", "c1", ProbeType.READINESS, ProbeResult.SUCCESS));
    assertThat(m.get("c1", ProbeType.READINESS)).contains(ProbeResult.SUCCESS);

    m.remove("c1", ProbeType.READINESS);
    assertThat(m.get("c1", ProbeType.READINESS)).isEmpty();
    assertThat(m.get("c1", ProbeType.LIVENESS)).contains(ProbeResult.FAILURE);
  }
}
