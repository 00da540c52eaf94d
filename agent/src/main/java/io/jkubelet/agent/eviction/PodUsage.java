package io.jkubelet.agent.eviction;

import java.util.Map;

/**
 * What one pod uses, for ranking and for the eviction message.
 *
 * @param memoryWorkingSet the pod's memory working set, bytes
 * @param containerMemory each container's working set by name
 * @param disk the pod's ephemeral storage (its local volumes and logs), bytes
 * @param inodes the inodes of that storage
 * @param processes the pod's processes
 */
public record PodUsage(
    long memoryWorkingSet,
    Map<String, Long> containerMemory,
    long disk,
    long inodes,
    long processes) {
  /** A pod that runs nothing. */
  public static final PodUsage NONE = new PodUsage(0, Map.of(), 0, 0, 0);

  public PodUsage {
    containerMemory = Map.copyOf(containerMemory);
  }
}
