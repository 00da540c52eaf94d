package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.config.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Makes sure a container's image is present, following its {@code imagePullPolicy}, with a
 * per-(pod, image) backoff after failed pulls, as upstream's {@code images.imageManager}.
 */
public final class ImagePuller {
  private final Runtime runtime;
  private final EventRecorder recorder;
  private final Clock clock;
  private final Backoff backoff;
  private final Duration pullTimeout;

  /**
   * Images seen present, and when: a pod of several containers of one image, or many pods started
   * at once, ask the engine once rather than once per container. Dropped for an image when a create
   * finds it missing.
   */
  private final java.util.Map<String, Instant> seenPresent =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static final Duration PRESENT_TTL = Duration.ofSeconds(5);

  public ImagePuller(
      Runtime runtime, EventRecorder recorder, Clock clock, Backoff backoff, Duration pullTimeout) {
    this.runtime = runtime;
    this.recorder = recorder;
    this.clock = clock;
    this.backoff = backoff;
    this.pullTimeout = pullTimeout;
  }

  /** Ensures the image; throws a {@link StartException} with the waiting reason when it cannot. */
  public void ensure(Pod pod, Container c, ObjectReference ref) throws StartException {
    String image = c.getImage();
    if (!validImageName(image)) {
      String msg =
          "Failed to apply default image tag \"" + image + "\": couldn't parse image reference";
      recorder.event(ref, EventType.Warning, WaitingReasons.INVALID_IMAGE_NAME, msg);
      throw new StartException(WaitingReasons.INVALID_IMAGE_NAME, msg);
    }
    String policy = c.getImagePullPolicy();
    boolean present = present(image);
    boolean pull = "Always".equals(policy) || (!"Never".equals(policy) && !present);
    if (!pull) {
      if (present) {
        recorder.eventf(
            ref,
            EventType.Normal,
            Reasons.PULLED,
            "Container image \"%s\" already present on machine",
            image);
        return;
      }
      String msg = "Container image \"" + image + "\" is not present with pull policy of Never";
      recorder.event(ref, EventType.Warning, Reasons.ERR_IMAGE_NEVER_PULL, msg);
      throw new StartException(WaitingReasons.ERR_IMAGE_NEVER_PULL, msg);
    }
    String key = pod.getMetadata().getUid() + "/" + image;
    if (backoff.remainingSinceUpdate(key).compareTo(Duration.ZERO) > 0) {
      String msg = "Back-off pulling image \"" + image + "\"";
      recorder.event(ref, EventType.Normal, Reasons.BACK_OFF, msg);
      throw new StartException(WaitingReasons.IMAGE_PULL_BACK_OFF, msg);
    }
    recorder.eventf(ref, EventType.Normal, Reasons.PULLING, "Pulling image \"%s\"", image);
    Instant start = clock.instant();
    try {
      runtime.pullImage(image, pullTimeout);
      seenPresent.put(image, clock.instant());
    } catch (RuntimeError e) {
      backoff.next(key, clock.instant());
      recorder.eventf(
          ref,
          EventType.Warning,
          Reasons.FAILED,
          "Failed to pull image \"%s\": %s",
          image,
          e.getMessage());
      throw new StartException(
          WaitingReasons.ERR_IMAGE_PULL,
          "Failed to pull image \"" + image + "\": " + e.getMessage());
    }
    recorder.eventf(
        ref,
        EventType.Normal,
        Reasons.PULLED,
        "Successfully pulled image \"%s\" in %s",
        image,
        Durations.format(Duration.between(start, clock.instant())));
  }

  /** Whether the image is present, from the engine or from a recent answer of it. */
  public boolean present(String image) {
    Instant now = clock.instant();
    Instant seen = seenPresent.get(image);
    if (seen != null && Duration.between(seen, now).compareTo(PRESENT_TTL) < 0) {
      return true;
    }
    boolean present = runtime.imagePresent(image);
    if (present) {
      seenPresent.put(image, now);
    } else {
      seenPresent.remove(image);
    }
    return present;
  }

  /** Forgets that the image was present: a create just found it missing. */
  public void forget(String image) {
    seenPresent.remove(image);
  }

  /** How long until the pod's pull backoff for this image ends, or zero. */
  public Duration backoffRemaining(Pod pod, String image) {
    return backoff.remainingSinceUpdate(pod.getMetadata().getUid() + "/" + image);
  }

  static boolean validImageName(String image) {
    return image != null
        && !image.isBlank()
        && image.equals(image.strip())
        && !image.contains(" ")
        && !image.endsWith(":")
        && !image.startsWith(":")
        && !image.contains("//");
  }
}
