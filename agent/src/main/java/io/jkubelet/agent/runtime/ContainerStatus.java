package io.jkubelet.agent.runtime;

import java.time.Instant;
import java.util.Comparator;
import java.util.Map;

/**
 * A container as the runtime reports it after an inspect. The accessors of the parts ({@link
 * #startedAt()}, {@link #exitCode()}, {@link #image()}, ...) read through to them.
 *
 * @param id the full container id
 * @param name the container's name in the pod spec (from its label)
 * @param sandboxId the sandbox it joined (from its label)
 * @param state its state
 * @param times when it was created, started and finished
 * @param exit how it exited
 * @param origin what it was made from: image, spec hash, restart count and labels
 * @param pid its main process on the host while it runs (Docker's {@code State.Pid}); 0 otherwise
 *     or when the runtime does not say. The one place jkubelet reads a container's main process.
 */
public record ContainerStatus(
    String id,
    String name,
    String sandboxId,
    ContainerState state,
    Times times,
    Exit exit,
    Origin origin,
    long pid) {

  /**
   * When a container was created, last started and exited.
   *
   * @param createdAt when it was created
   * @param startedAt when it last started, or null if never
   * @param finishedAt when it exited, or null if it has not
   */
  public record Times(Instant createdAt, Instant startedAt, Instant finishedAt) {}

  /**
   * How a container exited.
   *
   * @param exitCode its exit code (0 while running)
   * @param reason a CRI reason for an exited container: {@code OOMKilled}, {@code Completed},
   *     {@code Error} or {@code ContainerCannotRun}; "" otherwise
   * @param message the runtime's error message, if any
   */
  public record Exit(int exitCode, String reason, String message) {
    /** A container that has not exited: code 0, no reason, no message. */
    public static final Exit NONE = new Exit(0, "", "");
  }

  /**
   * What a container was made from, as jkubelet labelled it at its creation.
   *
   * @param image the image the spec asked for
   * @param imageRef the image's id: {@code docker-pullable://repo@sha256:...} or {@code
   *     docker://sha256:...}
   * @param hash the spec hash from its label
   * @param restartCount the restart count from its label
   * @param labels all its labels
   */
  public record Origin(
      String image, String imageRef, String hash, int restartCount, Map<String, String> labels) {}

  /** Newest first: by creation time, then by restart count (which only grows). */
  public static final Comparator<ContainerStatus> NEWEST_FIRST =
      Comparator.comparing(ContainerStatus::createdAt)
          .thenComparingInt(ContainerStatus::restartCount)
          .reversed();

  /** The same status with another message (e.g. with the termination message added). */
  public ContainerStatus withMessage(String newMessage) {
    return new ContainerStatus(
        id,
        name,
        sandboxId,
        state,
        times,
        new Exit(exit.exitCode(), exit.reason(), newMessage),
        origin,
        pid);
  }

  public boolean running() {
    return state == ContainerState.RUNNING;
  }

  public boolean exited() {
    return state == ContainerState.EXITED;
  }

  public Instant createdAt() {
    return times.createdAt();
  }

  public Instant startedAt() {
    return times.startedAt();
  }

  public Instant finishedAt() {
    return times.finishedAt();
  }

  public int exitCode() {
    return exit.exitCode();
  }

  public String reason() {
    return exit.reason();
  }

  public String message() {
    return exit.message();
  }

  public String image() {
    return origin.image();
  }

  public String imageRef() {
    return origin.imageRef();
  }

  public String hash() {
    return origin.hash();
  }

  public int restartCount() {
    return origin.restartCount();
  }

  public Map<String, String> labels() {
    return origin.labels();
  }
}
