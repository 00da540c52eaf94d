package io.jkubelet.agent.credentials;

import io.fabric8.kubernetes.api.model.Secret;
import io.jkubelet.agent.util.Errors;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * A pod's {@code imagePullSecrets} as a keyring, as upstream's {@code MakeDockerKeyring}: each
 * secret of type {@code kubernetes.io/dockerconfigjson} (key {@code .dockerconfigjson}) or {@code
 * kubernetes.io/dockercfg} (key {@code .dockercfg}) goes into one {@link BasicKeyring}, which is
 * tried before the node's own; secrets of other types, or without their key, are ignored. Pure
 * functions.
 */
public final class PullSecrets {
  private PullSecrets() {}

  public static final String TYPE_DOCKER_CONFIG_JSON = "kubernetes.io/dockerconfigjson";
  public static final String KEY_DOCKER_CONFIG_JSON = ".dockerconfigjson";
  public static final String TYPE_DOCKERCFG = "kubernetes.io/dockercfg";
  public static final String KEY_DOCKERCFG = ".dockercfg";

  /**
   * The pod's secrets, then the node's keyring; just the node's when no secret holds a config.
   *
   * @throws InvalidDockerConfig when a secret's config cannot be read: upstream fails the pull
   */
  public static Keyring keyring(List<Secret> secrets, Keyring node) throws InvalidDockerConfig {
    List<Map<String, AuthConfig>> configs = new ArrayList<>();
    for (Secret s : secrets) {
      byte[] json = value(s, KEY_DOCKER_CONFIG_JSON);
      if (TYPE_DOCKER_CONFIG_JSON.equals(s.getType()) && json.length > 0) {
        configs.add(DockerConfigs.parseConfigJson(json));
        continue;
      }
      byte[] cfg = value(s, KEY_DOCKERCFG);
      if (TYPE_DOCKERCFG.equals(s.getType()) && cfg.length > 0) {
        configs.add(DockerConfigs.parseDockercfg(cfg));
      }
    }
    if (configs.isEmpty()) {
      return node;
    }
    return Keyring.union(List.of(BasicKeyring.of(configs), node));
  }

  /** A key's bytes: from {@code data} (base64), or {@code stringData}; empty when absent. */
  private static byte[] value(Secret s, String key) throws InvalidDockerConfig {
    if (s.getData() != null && s.getData().get(key) != null) {
      try {
        return Base64.getMimeDecoder().decode(s.getData().get(key));
      } catch (IllegalArgumentException e) {
        throw Errors.withCause(
            new InvalidDockerConfig("the " + key + " of the secret is not base64"), e);
      }
    }
    if (s.getStringData() != null && s.getStringData().get(key) != null) {
      return s.getStringData().get(key).getBytes(StandardCharsets.UTF_8);
    }
    return new byte[0];
  }
}
