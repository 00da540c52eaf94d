package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.jkubelet.agent.credentials.AuthConfig;
import io.jkubelet.agent.credentials.ImageNames;
import io.jkubelet.agent.credentials.InvalidDockerConfig;
import io.jkubelet.agent.credentials.Keyring;
import io.jkubelet.agent.credentials.NodeKeyring;
import io.jkubelet.agent.credentials.PullSecrets;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.agent.runtime.RegistryAuth;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The credentials to try for a pod's image, as upstream's {@code getPullSecretsForPod} and {@code
 * PullImage}: the pod's {@code imagePullSecrets}, read through {@link PodObjects}, then the node's
 * keyring. A secret that cannot be read is logged as upstream's warning, recorded as a Warning
 * event on the pod ({@code FailedToRetrieveImagePullSecret}, as later upstream versions do) and
 * left out: the pull goes on without it. Thread-safe (stateless besides its collaborators).
 */
public final class PullCredentials {
  private static final Logger log = LoggerFactory.getLogger(PullCredentials.class);

  /** No secrets to read and no node credentials: every pull is anonymous. */
  public static final PullCredentials NONE = new PullCredentials(PodObjects.NONE, Keyring.EMPTY);

  private final PodObjects objects;
  private final Keyring node;

  public PullCredentials(PodObjects objects, Keyring node) {
    this.objects = objects;
    this.node = node;
  }

  /**
   * The pods' pull secrets and the node's Docker config file, searched where upstream searches: the
   * root directory, the working directory, the home directory, the file system's root.
   */
  public static PullCredentials forNode(Path rootDir, PodObjects objects, Clock clock) {
    String home = System.getenv("HOME");
    Path homeDir = Path.of(home == null || home.isEmpty() ? System.getProperty("user.home") : home);
    var paths = NodeKeyring.SearchPaths.upstream(rootDir, Path.of("").toAbsolutePath(), homeDir);
    return new PullCredentials(objects, new NodeKeyring(paths, clock));
  }

  /**
   * The credentials to try for this pod's image, in order: the pod's secrets' first, then the
   * node's. Empty: pull anonymously.
   *
   * @throws InvalidDockerConfig when a pull secret's config cannot be read (upstream fails the pull
   *     with that error)
   */
  List<RegistryAuth> forImage(Pod pod, String image, EventRecorder recorder)
      throws InvalidDockerConfig {
    Keyring keyring = PullSecrets.keyring(secrets(pod, recorder), node);
    return toAuths(keyring.lookup(ImageNames.repository(image)));
  }

  /** The node's credentials only, for the pod sandbox's image. */
  List<RegistryAuth> forNode(String image) {
    return toAuths(node.lookup(ImageNames.repository(image)));
  }

  private static List<RegistryAuth> toAuths(List<AuthConfig> found) {
    return found.stream().map(a -> RegistryAuth.basic(a.username(), a.password())).toList();
  }

  private List<Secret> secrets(Pod pod, EventRecorder recorder) {
    List<LocalObjectReference> refs =
        pod.getSpec() == null || pod.getSpec().getImagePullSecrets() == null
            ? List.of()
            : pod.getSpec().getImagePullSecrets();
    String ns = pod.getMetadata().getNamespace();
    List<Secret> out = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    for (LocalObjectReference ref : refs) {
      String name = ref.getName();
      if (name == null || name.isEmpty()) {
        continue;
      }
      String why;
      try {
        Optional<Secret> s = objects.secret(ns, name);
        if (s.isPresent()) {
          out.add(s.get());
          continue;
        }
        why = "secret \"" + name + "\" not found";
      } catch (PodObjects.Unavailable e) {
        why = e.getMessage();
      }
      log.warn(
          "Unable to retrieve pull secret {}/{} for {}/{} due to {}.  The image pull may not"
              + " succeed.",
          ns,
          name,
          ns,
          pod.getMetadata().getName(),
          why);
      failed.add(name);
    }
    if (!failed.isEmpty()) {
      recorder.eventf(
          Refs.pod(pod),
          EventType.Warning,
          Reasons.FAILED_TO_RETRIEVE_IMAGE_PULL_SECRET,
          "Unable to retrieve some image pull secrets (%s); attempting to pull the image may not"
              + " succeed.",
          String.join(", ", failed));
    }
    return out;
  }
}
