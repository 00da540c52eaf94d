package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
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
final class Sources {
  private final PodObjects objects;
  private final TokenManager tokens;
  private final NodeAllocatable allocatable;

  Sources(PodObjects objects, TokenManager tokens, NodeAllocatable allocatable) {
    this.objects = objects;
    this.tokens = tokens;
    this.allocatable = allocatable;
  }

  /** A source that cannot give its payload; the message is upstream's. */
  static final class SourceError extends Exception {
    SourceError(String message) {
      super(message);
    }
  }

  Map<String, FileProjection> secret(
      Pod pod, String name, List<KeyToPath> items, int defaultMode, boolean optional)
      throws SourceError {
    Optional<Secret> secret;
    try {
      secret = objects.secret(pod.getMetadata().getNamespace(), name);
    } catch (PodObjects.Unavailable e) {
      throw Errors.withCause(new SourceError(e.getMessage()), e);
    }
    if (secret.isEmpty() && !optional) {
      throw new SourceError("secret \"" + name + "\" not found");
    }
    try {
      return Payloads.secret(items, secret.orElse(null), defaultMode, optional);
    } catch (Payloads.MissingKey e) {
      throw Errors.withCause(new SourceError(e.getMessage()), e);
    }
  }

  Map<String, FileProjection> configMap(
      Pod pod, String name, List<KeyToPath> items, int defaultMode, boolean optional)
      throws SourceError {
    Optional<ConfigMap> cm;
    try {
      cm = objects.configMap(pod.getMetadata().getNamespace(), name);
    } catch (PodObjects.Unavailable e) {
      throw Errors.withCause(new SourceError(e.getMessage()), e);
    }
    if (cm.isEmpty() && !optional) {
      throw new SourceError("configmap \"" + name + "\" not found");
    }
    try {
      return Payloads.configMap(items, cm.orElse(null), defaultMode, optional);
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
