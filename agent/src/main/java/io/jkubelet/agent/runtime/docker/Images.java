package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.model.AuthConfig;
import com.github.dockerjava.api.model.Image;
import com.github.dockerjava.api.model.PullResponseItem;
import com.github.dockerjava.api.model.ResponseItem;
import io.jkubelet.agent.runtime.ImageSummary;
import io.jkubelet.agent.runtime.PullObserver;
import io.jkubelet.agent.runtime.PullProgress;
import io.jkubelet.agent.runtime.RegistryAuth;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.util.Errors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Images on the engine: whether one is present, pulling one, and an image's entrypoint. Pulls go to
 * the long-call client, since a layer extraction may be silent for long. Thread-safe (stateless
 * besides the clients).
 */
final class Images {
  private static final Logger log = LoggerFactory.getLogger(Images.class);

  private final DockerClient api;
  private final DockerClient longCalls;

  Images(DockerClients clients) {
    this.api = clients.api();
    this.longCalls = clients.longCalls();
  }

  /** Whether the image is present: an inspect that does not answer 404. */
  boolean present(String image) {
    try {
      api.inspectImageCmd(image).exec();
      return true;
    } catch (RuntimeException e) {
      if (DockerErrors.isNotFound(e)) {
        return false;
      }
      throw DockerErrors.translate(e, null);
    }
  }

  /**
   * Every image of the engine, named by its tags and digests (the {@code <none>} ones left out).
   */
  List<ImageSummary> list() {
    try {
      List<ImageSummary> out = new ArrayList<>();
      for (Image i : api.listImagesCmd().exec()) {
        List<String> names = new ArrayList<>();
        // Digests first, then tags, as upstream's Images setter lists them.
        Stream.of(i.getRepoDigests(), i.getRepoTags())
            .filter(Objects::nonNull)
            .flatMap(Arrays::stream)
            .filter(n -> !n.startsWith("<none>"))
            .forEach(names::add);
        out.add(new ImageSummary(names, i.getSize() == null ? 0 : i.getSize()));
      }
      return out;
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
  }

  /**
   * Pulls the image with the given credential, waiting at most {@code timeout} (null: without
   * limit). Every failure, from the request or from the engine's progress stream, is {@code
   * IMAGE_PULL}; a refused request says so as Docker's own client does ({@code Error response from
   * daemon: ...}).
   *
   * <p>NOTE: the credential is always set, an empty one for an anonymous pull as dockershim sends:
   * left unset, docker-java would send one of its own from the Docker config of the agent's user.
   *
   * <p>Each message of the engine's progress stream goes to {@code observer}; its cancel closes the
   * stream, which makes the engine drop the pull (unless another client waits on the same pull),
   * and the pull then fails with the cancel's message.
   */
  void pull(String image, RegistryAuth auth, Duration timeout, PullObserver observer) {
    String[] repoTag = repositoryAndTag(image);
    PullCallback callback = new PullCallback(observer);
    try {
      longCalls
          .pullImageCmd(repoTag[0])
          .withTag(repoTag[1])
          .withAuthConfig(authConfig(auth))
          .exec(callback);
      observer.started(callback::cancel);
      long millis = timeout == null ? Long.MAX_VALUE : Math.max(1, timeout.toMillis());
      if (!callback.awaitCompletion(millis, TimeUnit.MILLISECONDS)) {
        throw new RuntimeError(
            Kind.IMAGE_PULL,
            "pulling " + image + " did not complete within " + timeout.toSeconds() + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Errors.withCause(
          new RuntimeError(Kind.IMAGE_PULL, "interrupted while pulling " + image), e);
    } catch (RuntimeError e) {
      throw e;
    } catch (RuntimeException e) {
      throw Errors.withCause(new RuntimeError(Kind.IMAGE_PULL, pullFailure(e)), e);
    } finally {
      DockerClients.closeQuietly(callback);
    }
    callback.throwIfFailed(image);
    log.info("DockerRuntime: pulled {}", image);
  }

  /** docker-java's form of the credential: only the fields that are set. */
  static AuthConfig authConfig(RegistryAuth auth) {
    AuthConfig c = new AuthConfig().withRegistryAddress(emptyToNull(auth.serverAddress()));
    if (!auth.username().isEmpty()) {
      c = c.withUsername(auth.username());
    }
    if (!auth.password().isEmpty()) {
      c = c.withPassword(auth.password());
    }
    if (!auth.auth().isEmpty()) {
      c = c.withAuth(auth.auth());
    }
    if (!auth.identityToken().isEmpty()) {
      c = c.withIdentityToken(auth.identityToken());
    }
    if (!auth.registryToken().isEmpty()) {
      c = c.withRegistrytoken(auth.registryToken());
    }
    return c;
  }

  private static String emptyToNull(String s) {
    return s.isEmpty() ? null : s;
  }

  /** A failed pull request: the engine's refusal as Docker's client words it, or why no answer. */
  static String pullFailure(Throwable e) {
    return e instanceof DockerException de
        ? "Error response from daemon: " + DockerErrors.engineMessage(de)
        : DockerErrors.failureMessage(e);
  }

  /**
   * The image's own entrypoint, or null when it has none. A failure is {@code CREATE}: this is
   * asked only while creating a container.
   */
  List<String> entrypoint(String image) {
    try {
      InspectImageResponse inspected = api.inspectImageCmd(image).exec();
      String[] entrypoint =
          inspected.getConfig() == null ? null : inspected.getConfig().getEntrypoint();
      return entrypoint == null || entrypoint.length == 0 ? null : Arrays.asList(entrypoint);
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, Kind.CREATE);
    }
  }

  /** The user of the image's config, or "" when it names none; a missing image is NOT_FOUND. */
  String user(String image) {
    try {
      InspectImageResponse inspected = api.inspectImageCmd(image).exec();
      String user = inspected.getConfig() == null ? null : inspected.getConfig().getUser();
      return user == null ? "" : user;
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
  }

  /**
   * Splits a reference into what {@code POST /images/create} wants: {@code fromImage} and {@code
   * tag}, the tag being "latest" when absent or the digest for {@code repo@sha256:...}.
   */
  static String[] repositoryAndTag(String image) {
    int at = image.indexOf('@');
    if (at >= 0) {
      return new String[] {image.substring(0, at), image.substring(at + 1)};
    }
    int colon = image.lastIndexOf(':');
    if (colon > image.lastIndexOf('/')) { // a ':' before the last '/' is a registry port
      return new String[] {image.substring(0, colon), image.substring(colon + 1)};
    }
    return new String[] {image, "latest"};
  }

  /**
   * Collects the first error: one the engine reports inside the progress stream, or one the request
   * failed with. docker-java's own {@code onError} would log every failed pull at ERROR with a
   * stack trace, although the caller is told and decides how loud to be.
   */
  private static final class PullCallback extends ResultCallback.Adapter<PullResponseItem> {
    private final PullObserver observer;
    private volatile String error;
    private volatile Throwable failure;
    private volatile String cancelled;

    PullCallback(PullObserver observer) {
      this.observer = observer;
    }

    /** Stops the pull: the stream is closed, and the pull fails with {@code why}. */
    void cancel(String why) {
      cancelled = why;
      DockerClients.closeQuietly(this);
    }

    @Override
    public void onError(Throwable throwable) {
      if (failure == null && cancelled == null) {
        failure = throwable;
      }
      DockerClients.closeQuietly(this); // completes the callback: awaitCompletion returns
    }

    @Override
    @SuppressWarnings("deprecation") // getError: older engines send only the plain "error"
    public void onNext(PullResponseItem item) {
      if (item != null && !item.isErrorIndicated() && cancelled == null) {
        ResponseItem.ProgressDetail d = item.getProgressDetail();
        observer.progress(
            new PullProgress(
                item.getId(),
                item.getStatus(),
                d == null || d.getCurrent() == null ? 0 : d.getCurrent(),
                d == null || d.getTotal() == null ? 0 : d.getTotal()));
      }
      if (error == null && item != null && item.isErrorIndicated()) {
        error =
            item.getErrorDetail() != null && item.getErrorDetail().getMessage() != null
                ? item.getErrorDetail().getMessage()
                : item.getError();
      }
    }

    /** Throws {@code IMAGE_PULL} with the first error, if there was one. */
    void throwIfFailed(String image) {
      String c = cancelled;
      if (c != null) {
        log.debug("DockerRuntime: pulling {} cancelled: {}", image, c);
        throw new RuntimeError(Kind.IMAGE_PULL, c);
      }
      Throwable f = failure;
      if (f != null) {
        String message = pullFailure(f);
        log.debug("DockerRuntime: pulling {} failed: {}", image, message);
        throw Errors.withCause(new RuntimeError(Kind.IMAGE_PULL, message), f);
      }
      String e = error;
      if (e != null) {
        log.debug("DockerRuntime: pulling {} failed: {}", image, e);
        throw new RuntimeError(Kind.IMAGE_PULL, e);
      }
    }
  }
}
