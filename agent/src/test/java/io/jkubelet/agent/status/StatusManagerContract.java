package io.jkubelet.agent.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.TestPods;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rules every {@link StatusManager} keeps statuses by, run against the standalone and the
 * cluster-mode manager, so that both modes report the same status for the same pod.
 */
abstract class StatusManagerContract {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  StatusManager manager;

  /** A new manager, not started. */
  abstract StatusManager create() throws Exception;

  @BeforeEach
  void createManager() throws Exception {
    manager = create();
  }

  @Test
  void aTerminalPhaseIsNeverMovedBack() {
    Pod pod = TestPods.simple("uid-t", "t", "app");
    PodStatus failed =
        new PodStatusBuilder(ApiStatusFixtures.pending(pod, T0)).withPhase("Failed").build();

    manager.setPodStatus(pod, failed);
    manager.setPodStatus(pod, ApiStatusFixtures.running(pod, T0, "10.88.0.2", true, 0));

    assertThat(manager.getPodStatus("uid-t").orElseThrow().getPhase()).isEqualTo("Failed");
  }

  @Test
  void aTerminatedContainerDoesNotComeBackUnlessThePodRestartsAlways() {
    Pod pod = TestPods.simple("uid-n", "n", "app");
    pod.getSpec().setRestartPolicy("Never");
    PodStatus done = ApiStatusFixtures.running(pod, T0, "10.88.0.3", false, 0);
    done.getContainerStatuses()
        .get(0)
        .setState(
            new ContainerStateBuilder()
                .withNewTerminated()
                .withExitCode(0)
                .endTerminated()
                .build());

    manager.setPodStatus(pod, done);
    manager.setPodStatus(pod, ApiStatusFixtures.running(pod, T0, "10.88.0.3", true, 1));

    assertThat(
            manager
                .getPodStatus("uid-n")
                .orElseThrow()
                .getContainerStatuses()
                .get(0)
                .getState()
                .getTerminated())
        .isNotNull();
  }

  @Test
  void statusesAreKeptUntilTheirPodIsOrphaned() {
    Pod pod = TestPods.simple("uid-a", "a", "app");
    manager.setPodStatus(pod, ApiStatusFixtures.pending(pod, T0));
    assertThat(manager.getPodStatus("uid-a")).isPresent();
    assertThat(manager.size()).isEqualTo(1);

    manager.removeOrphanedStatuses(Set.of());

    assertThat(manager.getPodStatus("uid-a")).isEmpty();
    assertThat(manager.size()).isZero();
  }
}
