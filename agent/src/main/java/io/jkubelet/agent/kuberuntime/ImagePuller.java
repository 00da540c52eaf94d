package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.credentials.InvalidDockerConfig;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.pod.WaitingReasons;
import io.jkubelet.agent.runtime.PullObserver;
import io.jkubelet.agent.runtime.RegistryAuth;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.config.Durations;
import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure a container's image is present, following its {@code imagePullPolicy}, with a
 * per-(pod, image) backoff after failed pulls, as upstream's {@code images.imageManager}; a pull
 * tries each credential {@link PullCredentials} finds in turn, as upstream's {@code PullImage}, or
 * goes anonymously when none matches.
 *
 * <p>The pull itself goes through {@link ImagePulls}: one engine pull per image however many pods
 * wait on it, its progress in their {@code Pulling} events, and the progress deadline.
 *
 * <p>A failure reads as the kubelet reads the runtime's over the CRI: {@code rpc error: code =
 * Unknown desc = <the engine's error>}, several joined as upstream's aggregate error ({@code [a,
 * b]}).
 */
public final class ImagePuller {
  private static final Logger log = LoggerFactory.getLogger(ImagePuller.class);

  private final Deps deps;

  /** How the CRI's gRPC status reads a runtime's plain error. */
  static final String RPC_UNKNOWN = "rpc error: code = Unknown desc = ";

  /**
   * Images seen present, and when: a pod of several containers of one image, or many pods started
   * at once, ask the engine once rather than once per container. Dropped for an image when a create
   * finds it missing, and once expired when another image is recorded: it holds only the images
   * seen in the last {@link #PRESENT_TTL}, not every image the node ever ran.
   */
  private final java.util.Map<String, Instant> seenPresent =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static final Duration PRESENT_TTL = Duration.ofSeconds(5);

  /**
   * What the puller works with.
   *
   * @param recorder the pods' events: pulling, pulled, back-off and failures
   * @param backoff the pull back-off, keyed by image and pod
   * @param pullTimeout the most a pod's pull may take in all, or null for no limit (upstream's: its
   *     progress deadline, in {@code pulls}, stops a pull that stalls)
   * @param credentials finds the pod's credentials for an image
   * @param pulls the pulls in flight, shared by the pods that wait on one image
   */
  public record Deps(
      Runtime runtime,
      EventRecorder recorder,
      Clock clock,
      Backoff backoff,
      @Nullable Duration pullTimeout,
      PullCredentials credentials,
      ImagePulls pulls) {
    public Deps {
      Records.requireNonNull(Deps.class, runtime, recorder, clock, backoff, credentials, pulls);
    }
  }

  public ImagePuller(Deps deps) {
    this.deps = deps;
  }

  /** Ensures the image; throws a {@link StartException} with the waiting reason when it cannot. */
  public void ensure(Pod pod, Container c, ObjectReference ref) throws StartException {
    String image = c.getImage();
    if (!validImageName(image)) {
      String msg =
          "Failed to apply default image tag \"" + image + "\": couldn't parse image reference";
      deps.recorder().event(ref, EventType.Warning, WaitingReasons.INVALID_IMAGE_NAME, msg);
      throw new StartException(WaitingReasons.INVALID_IMAGE_NAME, msg);
    }
    String policy = c.getImagePullPolicy();
    boolean present = present(image);
    boolean pull = "Always".equals(policy) || (!"Never".equals(policy) && !present);
    if (!pull) {
      if (present) {
        deps.recorder()
            .eventf(
                ref,
                EventType.Normal,
                Reasons.PULLED,
                "Container image \"%s\" already present on machine",
                image);
        return;
      }
      String msg = "Container image \"" + image + "\" is not present with pull policy of Never";
      deps.recorder().event(ref, EventType.Warning, Reasons.ERR_IMAGE_NEVER_PULL, msg);
      throw new StartException(WaitingReasons.ERR_IMAGE_NEVER_PULL, msg);
    }
    String key = pod.getMetadata().getUid() + "/" + image;
    if (deps.backoff().remainingSinceUpdate(key).compareTo(Duration.ZERO) > 0) {
      String msg = "Back-off pulling image \"" + image + "\"";
      deps.recorder().event(ref, EventType.Normal, Reasons.BACK_OFF, msg);
      throw new StartException(WaitingReasons.IMAGE_PULL_BACK_OFF, msg);
    }
    deps.recorder().eventf(ref, EventType.Normal, Reasons.PULLING, "Pulling image \"%s\"", image);
    Instant start = deps.clock().instant();
    String failure =
        pull(pod, image, new ImagePulls.Waiter(pod.getMetadata().getUid(), c.getName(), ref));
    if (failure != null) {
      deps.backoff().next(key, deps.clock().instant());
      deps.recorder()
          .eventf(
              ref,
              EventType.Warning,
              Reasons.FAILED,
              "Failed to pull image \"%s\": %s",
              image,
              failure);
      throw new StartException(WaitingReasons.ERR_IMAGE_PULL, failure);
    }
    deps.recorder()
        .eventf(
            ref,
            EventType.Normal,
            Reasons.PULLED,
            "Successfully pulled image \"%s\" in %s",
            image,
            Durations.format(Duration.between(start, deps.clock().instant())));
  }

  /**
   * Pulls with each credential in turn, or anonymously, or waits on the same pull in flight; null
   * on success, else why not.
   */
  private String pull(Pod pod, String image, ImagePulls.Waiter waiter) {
    List<RegistryAuth> auths;
    try {
      auths = deps.credentials().forImage(pod, image, deps.recorder());
    } catch (InvalidDockerConfig e) {
      return e.getMessage();
    }
    if (auths.isEmpty()) {
      log.debug("ImagePuller: pulling image {} without credentials", image);
      auths = List.of(RegistryAuth.NONE);
    }
    String failure = deps.pulls().pull(image, auths, deps.pullTimeout(), waiter);
    if (failure == null) {
      seenPresent.put(image, deps.clock().instant());
    }
    return failure;
  }

  /**
   * Pulls the pod sandbox's image with the node's credentials, as dockershim's {@code
   * ensureSandboxImageExists}; throws {@code IMAGE_PULL} when every try failed.
   */
  public void pullInfra(String image, Duration timeout) {
    List<RegistryAuth> auths = deps.credentials().forNode(image);
    if (auths.isEmpty()) {
      try {
        deps.runtime().pullImage(image, RegistryAuth.NONE, timeout, PullObserver.NONE);
        return;
      } catch (RuntimeError e) {
        throw Errors.withCause(
            new RuntimeError(
                RuntimeError.Kind.IMAGE_PULL,
                "failed pulling image \"" + image + "\": " + e.getMessage()),
            e);
      }
    }
    List<String> errors = new ArrayList<>();
    for (RegistryAuth auth : auths) {
      try {
        deps.runtime().pullImage(image, auth, timeout, PullObserver.NONE);
        return;
      } catch (RuntimeError e) {
        errors.add(e.getMessage());
      }
    }
    throw new RuntimeError(RuntimeError.Kind.IMAGE_PULL, aggregate(errors));
  }

  /**
   * Several errors as upstream's {@code utilerrors.NewAggregate(...).Error()}: one alone as it is;
   * else the distinct ones, in order, in brackets.
   */
  static String aggregate(List<String> errors) {
    if (errors.size() == 1) {
      return errors.get(0);
    }
    Set<String> distinct = new LinkedHashSet<>(errors);
    String joined = String.join(", ", distinct);
    return distinct.size() == 1 ? joined : "[" + joined + "]";
  }

  /** Whether the image is present, from the engine or from a recent answer of it. */
  public boolean present(String image) {
    Instant now = deps.clock().instant();
    Instant seen = seenPresent.get(image);
    if (seen != null && Duration.between(seen, now).compareTo(PRESENT_TTL) < 0) {
      return true;
    }
    boolean present = deps.runtime().imagePresent(image);
    if (present) {
      seenPresent.values().removeIf(t -> !Duration.between(t, now).minus(PRESENT_TTL).isNegative());
      seenPresent.put(image, now);
    } else {
      seenPresent.remove(image);
    }
    return present;
  }

  /** How many images are remembered as present; for tests. */
  int presentCacheSize() {
    return seenPresent.size();
  }

  /** Forgets that the image was present: a create just found it missing. */
  public void forget(String image) {
    seenPresent.remove(image);
  }

  /** How long until the pod's pull back-off for this image ends, or zero. */
  public Duration backoffRemaining(Pod pod, String image) {
    return deps.backoff().remainingSinceUpdate(pod.getMetadata().getUid() + "/" + image);
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
