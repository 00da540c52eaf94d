package io.jkubelet.agent.runtime;

import java.time.Instant;

/**
 * One container from a runtime listing, with what its labels say about its pod.
 *
 * @param id the full container id (64 hex for Docker)
 * @param pod the pod the labels name
 * @param containerName the container's name in the pod spec, or {@link Labels#POD_CONTAINER_NAME}
 *     for a sandbox
 * @param sandbox whether this is a pod sandbox
 * @param state the container's state
 * @param createdAt when it was created
 */
public record ContainerSummary(
    String id,
    PodRef pod,
    String containerName,
    boolean sandbox,
    ContainerState state,
    Instant createdAt) {}
