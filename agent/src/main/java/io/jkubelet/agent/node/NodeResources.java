package io.jkubelet.agent.node;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The parts of the Node's status that other subsystems own: what node allocatable holds back of
 * each resource (upstream's {@code GetNodeAllocatableReservation}), and which pressure conditions
 * the eviction manager reports.
 *
 * @param reservation resource name to the amount held back, in the resource's base unit:
 *     thousandths of a core for {@code cpu}, bytes for {@code memory} and {@code ephemeral-storage}
 * @param pressure the pressure conditions that are True now ({@code MemoryPressure}, {@code
 *     DiskPressure}, {@code PIDPressure}); asked at each status computation, must not block
 */
public record NodeResources(Map<String, Long> reservation, Supplier<Set<String>> pressure) {

  /** Nothing reserved and never under pressure. */
  public static final NodeResources NONE = new NodeResources(Map.of(), Set::of);

  public static final String MEMORY_PRESSURE = NodeStatuses.MEMORY_PRESSURE;
  public static final String DISK_PRESSURE = NodeStatuses.DISK_PRESSURE;
  public static final String PID_PRESSURE = NodeStatuses.PID_PRESSURE;

  public NodeResources {
    reservation = Map.copyOf(reservation);
    Objects.requireNonNull(pressure, "pressure");
  }
}
