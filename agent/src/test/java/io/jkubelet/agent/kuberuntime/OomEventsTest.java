package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One OOMKilled event per kill, and state bounded by the containers the runtime still has. */
class OomEventsTest {
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  private final List<String> reasons = new ArrayList<>();
  private final EventRecorder recorder = (ref, type, reason, message) -> reasons.add(reason);
  private final OomEvents oom = new OomEvents(recorder, START, OomEvents.Watch.NONE);
  private final Pod pod = TestPods.simple("u1", "web", "app");
  private final PodRef ref = new PodRef("u1", "web", "default");

  private static ContainerStatus oomKilled(String id, int restarts) {
    Instant at = START.plusSeconds(10L * (restarts + 1));
    return new ContainerStatus(
        id,
        "app",
        "s1",
        ContainerState.EXITED,
        at,
        at,
        at.plusSeconds(1),
        137,
        "OOMKilled",
        "",
        "img",
        "img@sha",
        "h",
        restarts,
        Map.of());
  }

  @Test
  void aKillIsReportedOnceAndOnlyTheContainersTheRuntimeStillHasAreRemembered() {
    // A container OOM-killed in a loop: the runtime keeps only the newest dead one.
    for (int i = 0; i < 50; i++) {
      PodStatus status = new PodStatus(ref, List.of(), List.of(oomKilled("c" + i, i)));
      oom.observe(pod, status);
      oom.observe(pod, status); // a second sync of the same status reports nothing new
    }
    assertThat(reasons).hasSize(50).containsOnly("OOMKilled");
    assertThat(oom.size()).isEqualTo(1);
    assertThat(oom.remembered("u1")).containsExactly("c49");

    oom.observe(pod, PodStatus.empty(ref)); // its containers removed: nothing left to remember
    assertThat(oom.size()).isZero();
  }
}
