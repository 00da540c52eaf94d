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
 * @param createdAt when it was created (Docker's listing has whole seconds only)
 * @param attempt the container's restart count from its labels (0 for a sandbox): what orders
 *     containers of one pod container created within the same second
 */
public record ContainerSummary(
    String id,
    PodRef pod,
    String containerName,
    boolean sandbox,
    ContainerState state,
    Instant createdAt,
    int attempt) {
  /** Newest first: by creation, then (for one second's creations) by attempt. */
  public static final java.util.Comparator<ContainerSummary> NEWEST_FIRST =
      java.util.Comparator.comparing(ContainerSummary::createdAt)
          .thenComparingInt(ContainerSummary::attempt)
          .reversed();

  /** The ids of a listing's containers, in its order. */
  public static java.util.List<String> ids(java.util.List<ContainerSummary> listing) {
    return listing.stream().map(ContainerSummary::id).toList();
  }
}
