package io.jkubelet.agent.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.TestPods;
import java.time.Instant;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The status cache's transition rules and versions. */
class StatusCacheTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private final StatusCache cache = new StatusCache();

  private static PodStatus terminated(Pod pod, int exitCode) {
    PodStatus s = ApiStatusFixtures.running(pod, T0, "10.88.0.3", false, 0);
    s.getContainerStatuses()
        .get(0)
        .setState(
            new ContainerStateBuilder()
                .withNewTerminated()
                .withExitCode(exitCode)
                .endTerminated()
                .build());
    return s;
  }

  @Test
  void aTerminalPhaseIsKept() {
    Pod pod = TestPods.simple("u1", "p", "app");
    cache.set(
        pod, new PodStatusBuilder(ApiStatusFixtures.pending(pod, T0)).withPhase("Failed").build());

    var accepted = cache.set(pod, ApiStatusFixtures.running(pod, T0, "10.88.0.2", true, 0));

    assertThat(accepted).get().extracting(c -> c.status().getPhase()).isEqualTo("Failed");
    assertThat(cache.status("u1").orElseThrow().getPhase()).isEqualTo("Failed");
  }

  static Stream<Arguments> transitions() {
    return Stream.of(
        Arguments.of(Named.of("Never, exit 0", "Never"), 0, false),
        Arguments.of(Named.of("Never, exit 1", "Never"), 1, false),
        Arguments.of(Named.of("OnFailure, exit 0", "OnFailure"), 0, false),
        Arguments.of(Named.of("OnFailure, exit 1", "OnFailure"), 1, true),
        Arguments.of(Named.of("Always, exit 0", "Always"), 0, true));
  }

  @ParameterizedTest
  @MethodSource("transitions")
  void aTerminatedContainerComesBackOnlyWhenThePodRestartsIt(
      String restartPolicy, int exitCode, boolean accepted) {
    Pod pod = TestPods.simple("u1", "p", "app");
    pod.getSpec().setRestartPolicy(restartPolicy);
    cache.set(pod, terminated(pod, exitCode));

    var result = cache.set(pod, ApiStatusFixtures.running(pod, T0, "10.88.0.3", true, 1));

    assertThat(result.isPresent()).isEqualTo(accepted);
    assertThat(
            cache.status("u1").orElseThrow().getContainerStatuses().get(0).getState().getRunning()
                != null)
        .isEqualTo(accepted);
  }

  @Test
  void theStartTimeNeverChanges() {
    Pod pod = TestPods.simple("u1", "p", "app");
    cache.set(pod, ApiStatusFixtures.pending(pod, T0));

    cache.set(pod, ApiStatusFixtures.running(pod, T0.plusSeconds(60), "10.88.0.2", true, 0));

    assertThat(cache.status("u1").orElseThrow().getStartTime()).isEqualTo(StatusGenerator.time(T0));
  }

  @Test
  void versionsIncreaseAcrossPodsAndStatusesAreCopies() {
    Pod a = TestPods.simple("ua", "a", "app");
    Pod b = TestPods.simple("ub", "b", "app");
    PodStatus mine = ApiStatusFixtures.pending(a, T0);

    long v1 = cache.set(a, mine).orElseThrow().version();
    long v2 = cache.set(b, ApiStatusFixtures.pending(b, T0)).orElseThrow().version();
    long v3 = cache.set(a, ApiStatusFixtures.pending(a, T0)).orElseThrow().version();
    mine.setPhase("Changed");
    cache.status("ua").orElseThrow().setPhase("Changed too");

    assertThat(v1).isLessThan(v2);
    assertThat(v2).isLessThan(v3);
    assertThat(cache.status("ua").orElseThrow().getPhase()).isEqualTo("Pending");
  }

  @Test
  void orphansAreForgotten() {
    Pod a = TestPods.simple("ua", "a", "app");
    Pod b = TestPods.simple("ub", "b", "app");
    cache.set(a, ApiStatusFixtures.pending(a, T0));
    cache.set(b, ApiStatusFixtures.pending(b, T0));

    cache.retainAll(Set.of("ub"));

    assertThat(cache.status("ua")).isEmpty();
    assertThat(cache.status("ub")).isPresent();
  }
}
