package io.jkubelet.agent.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.util.Lifecycle.Health;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Allocatable less the reservations, and the pressure conditions, in the Node's status. */
class NodeResourcesStatusTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void allocatableIsCapacityLessTheReservationAndMemoryLessHugePages() {
    var d =
        NodeStatuses.desired(
            NodeStatusesTest.OPTIONS,
            NodeStatusesTest.MACHINE,
            NodeStatusesTest.DOCKER,
            Health.OK,
            null,
            NOW,
            Map.of("cpu", 250L, "memory", (1024L + 100) << 20, "ephemeral-storage", 10L << 30),
            Set.of());

    Map<String, Quantity> a = d.status().getAllocatable();
    // 4 cores less 250m; 15991Mi less 1Gi and 100Mi less 8Mi of hugepages; 100Gi less 10Gi.
    assertThat(a.get("cpu")).isEqualTo(new Quantity("3750m"));
    assertThat(a.get("memory")).isEqualTo(new Quantity("14859Mi"));
    assertThat(a.get("ephemeral-storage")).isEqualTo(new Quantity("90Gi"));
    assertThat(a.get("pods")).isEqualTo(new Quantity("110"));
    assertThat(d.status().getCapacity().get("memory")).isEqualTo(new Quantity("15991Mi"));
  }

  @Test
  void aReservationOverTheCapacityLeavesZero() {
    var d =
        NodeStatuses.desired(
            NodeStatusesTest.OPTIONS,
            NodeStatusesTest.MACHINE,
            NodeStatusesTest.DOCKER,
            Health.OK,
            null,
            NOW,
            Map.of("memory", 64L << 30, "cpu", 8000L),
            Set.of());

    assertThat(d.status().getAllocatable().get("memory")).isEqualTo(new Quantity("0"));
    assertThat(d.status().getAllocatable().get("cpu")).isEqualTo(new Quantity("0"));
  }

  @Test
  void pressureSetsTheConditionsWithUpstreamReasonsAndEvents() {
    var before =
        NodeStatuses.desired(
            NodeStatusesTest.OPTIONS,
            NodeStatusesTest.MACHINE,
            NodeStatusesTest.DOCKER,
            Health.OK,
            null,
            NOW,
            Map.of(),
            Set.of());
    var d =
        NodeStatuses.desired(
            NodeStatusesTest.OPTIONS,
            NodeStatusesTest.MACHINE,
            NodeStatusesTest.DOCKER,
            Health.OK,
            before.status().getConditions(),
            NOW.plusSeconds(10),
            Map.of(),
            Set.of("MemoryPressure", "DiskPressure", "PIDPressure"));

    assertThat(d.status().getConditions())
        .extracting(NodeCondition::getType, NodeCondition::getStatus, NodeCondition::getReason)
        .containsExactly(
            tuple("MemoryPressure", "True", "KubeletHasInsufficientMemory"),
            tuple("DiskPressure", "True", "KubeletHasDiskPressure"),
            tuple("PIDPressure", "True", "KubeletHasInsufficientPID"),
            tuple("Ready", "True", "KubeletReady"));
    assertThat(d.status().getConditions().get(0).getMessage())
        .isEqualTo("kubelet has insufficient memory available");
    assertThat(d.events())
        .isEqualTo(
            List.of(
                Reasons.NODE_HAS_INSUFFICIENT_MEMORY,
                Reasons.NODE_HAS_DISK_PRESSURE,
                Reasons.NODE_HAS_INSUFFICIENT_PID));
    assertThat(d.status().getConditions().get(0).getLastTransitionTime())
        .isEqualTo("2026-01-01T00:00:10Z");
  }
}
