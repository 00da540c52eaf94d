package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountTokenProjection;
import io.jkubelet.agent.env.NodeAllocatable;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.agent.util.Errors;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The payload of each projection source: a secret, a configMap, downward API items, a
 * service-account token. Shared by the secret, configMap, downward API and projected plugins.
 * Thread-safe: its collaborators are.
 */
record Sources(PodObjects objects, TokenManager tokens, NodeAllocatable allocatable) {

  /** A source that cannot give its payload; the message is upstream's. */
  static final class SourceError extends Exception {
    SourceError(String message) {
      super(message);
    }
  }

  /**
   * The keys a volume takes from a secret or a configMap.
   *
   * @param name the object's name
   * @param items the keys and the paths they go to; every key when empty
   * @param mode the mode of a file whose item does not say
   * @param optional whether the object or a key may be missing
   */
  record Keys(String name, List<KeyToPath> items, int mode, boolean optional) {}

  Map<String, FileProjection> secret(Pod pod, Keys keys) throws SourceError {
    return keys(pod, keys, "secret", objects::secret, Payloads::secret);
  }

  Map<String, FileProjection> configMap(Pod pod, Keys keys) throws SourceError {
    return keys(pod, keys, "configmap", objects::configMap, Payloads::configMap);
  }

  /** Reads an object of the pod's namespace. */
  @FunctionalInterface
  private interface Lookup<T> {
    Optional<T> get(String namespace, String name) throws PodObjects.Unavailable;
  }

  /** An object's files, null for a missing optional object. */
  @FunctionalInterface
  private interface Project<T> {
    Map<String, FileProjection> of(List<KeyToPath> items, T object, int mode, boolean optional)
        throws Payloads.MissingKey;
  }

  private static <T> Map<String, FileProjection> keys(
      Pod pod, Keys keys, String kind, Lookup<T> lookup, Project<T> project) throws SourceError {
    Optional<T> object;
    try {
      object = lookup.get(pod.getMetadata().getNamespace(), keys.name());
    } catch (PodObjects.Unavailable e) {
      throw Errors.withCause(new SourceError(e.getMessage()), e);
    }
    if (object.isEmpty() && !keys.optional()) {
      throw new SourceError(kind + " \"" + keys.name() + "\" not found");
    }
    try {
      return project.of(keys.items(), object.orElse(null), keys.mode(), keys.optional());
    } catch (Payloads.MissingKey e) {
      throw Errors.withCause(new SourceError(e.getMessage()), e);
    }
  }

  Map<String, FileProjection> downward(Pod pod, List<DownwardAPIVolumeFile> items, int mode)
      throws SourceError {
    try {
      return DownwardApi.collect(items, pod, mode, allocatable);
    } catch (DownwardApi.FieldError e) {
      throw Errors.withCause(new SourceError(e.getMessage()), e);
    }
  }

  /** The token file; 0600 under an fsGroup, which the ownership then opens to the group. */
  Map<String, FileProjection> token(Pod pod, ServiceAccountTokenProjection p, int defaultMode)
      throws SourceError {
    int mode = Volumes.fsGroup(pod) != null ? 0600 : defaultMode;
    try {
      String token = tokens.token(pod, p);
      return Map.of(p.getPath(), new FileProjection(token.getBytes(StandardCharsets.UTF_8), mode));
    } catch (TokenManager.TokenError e) {
      throw Errors.withCause(new SourceError(e.getMessage()), e);
    }
  }

  /** The mode a volume's files get when neither the item nor {@code defaultMode} says. */
  static int mode(Integer defaultMode) {
    return defaultMode == null ? 0644 : defaultMode;
  }
}
