package io.jkubelet.agent.env;

/**
 * What the node offers a container without limits, for {@code resourceFieldRef}: upstream's {@code
 * defaultPodLimitsForDownwardAPI} reads a missing (or zero) limit as the node's allocatable.
 *
 * @param milliCpu allocatable cpu in millicores
 * @param memoryBytes allocatable memory
 * @param ephemeralStorageBytes allocatable ephemeral storage
 */
public record NodeAllocatable(long milliCpu, long memoryBytes, long ephemeralStorageBytes) {}
