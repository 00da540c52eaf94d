package io.jkubelet.agent.runtime;

import java.time.Instant;
import java.util.Map;

/**
 * A container as the runtime reports it after an inspect.
 *
 * @param id the full container id
 * @param name the container's name in the pod spec (from its label)
 * @param sandboxId the sandbox it joined (from its label)
 * @param state its state
 * @param createdAt when it was created
 * @param startedAt when it last started, or null if never
 * @param finishedAt when it exited, or null if it has not
 * @param exitCode its exit code (0 while running)
 * @param reason a CRI reason for an exited container: {@code OOMKilled}, {@code Completed}, {@code
 *     Error} or {@code ContainerCannotRun}; "" otherwise
 * @param message the runtime's error message, if any
 * @param image the image the spec asked for
 * @param imageRef the image's id: {@code docker-pullable://repo@sha256:...} or {@code
 *     docker://sha256:...}
 * @param hash the spec hash from its label
 * @param restartCount the restart count from its label
 * @param labels all its labels
 * @param pid its main process on the host while it runs (Docker's {@code State.Pid}); 0 otherwise
 *     or when the runtime does not say
 */
public record ContainerStatus(
    String id,
    String name,
    String sandboxId,
    ContainerState state,
    Instant createdAt,
    Instant startedAt,
    Instant finishedAt,
    int exitCode,
    String reason,
    String message,
    String image,
    String imageRef,
    String hash,
    int restartCount,
    Map<String, String> labels,
    long pid) {

  /** Newest first: by creation time, then by restart count (which only grows). */
  public static final java.util.Comparator<ContainerStatus> NEWEST_FIRST =
      java.util.Comparator.comparing(ContainerStatus::createdAt)
          .thenComparingInt(ContainerStatus::restartCount)
          .reversed();

  /** The same status with another message (e.g. with the termination message added). */
  public ContainerStatus withMessage(String newMessage) {
    return new ContainerStatus(
        id,
        name,
        sandboxId,
        state,
        createdAt,
        startedAt,
        finishedAt,
        exitCode,
        reason,
        newMessage,
        image,
        imageRef,
        hash,
        restartCount,
        labels,
        pid);
  }

  public boolean running() {
    return state == ContainerState.RUNNING;
  }

  public boolean exited() {
    return state == ContainerState.EXITED;
  }
}
