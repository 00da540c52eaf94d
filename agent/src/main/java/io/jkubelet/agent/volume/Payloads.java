package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Key-to-path projection of secrets and configMaps, as upstream's {@code secret.MakePayload} and
 * {@code configmap.MakePayload}: without {@code items} every key becomes a file of its name with
 * the default mode; with them, each item's key goes to its path with its mode or the default. A
 * missing key fails the volume unless it is optional. Pure functions.
 */
final class Payloads {
  private Payloads() {}

  /** A key that an item names and the object does not have; upstream's message. */
  static final class MissingKey extends Exception {
    MissingKey(String message) {
      super(message);
    }
  }

  /** The secret's files; its {@code data} is base64, as the API serves it. */
  static Map<String, FileProjection> secret(
      List<KeyToPath> items, Secret secret, int defaultMode, boolean optional) throws MissingKey {
    Map<String, byte[]> data = new HashMap<>();
    if (secret != null && secret.getData() != null) {
      secret.getData().forEach((k, v) -> data.put(k, decode(v)));
    }
    return project(items, data, defaultMode, optional, "references non-existent secret key: ");
  }

  /** The configMap's files, from {@code data} and {@code binaryData}. */
  static Map<String, FileProjection> configMap(
      List<KeyToPath> items, ConfigMap configMap, int defaultMode, boolean optional)
      throws MissingKey {
    Map<String, byte[]> data = new HashMap<>();
    if (configMap != null && configMap.getData() != null) {
      configMap.getData().forEach((k, v) -> data.put(k, v.getBytes(StandardCharsets.UTF_8)));
    }
    if (configMap != null && configMap.getBinaryData() != null) {
      configMap.getBinaryData().forEach((k, v) -> data.putIfAbsent(k, decode(v)));
    }
    return project(
        items, data, defaultMode, optional, "configmap references non-existent config key: ");
  }

  private static Map<String, FileProjection> project(
      List<KeyToPath> items,
      Map<String, byte[]> data,
      int defaultMode,
      boolean optional,
      String missing)
      throws MissingKey {
    Map<String, FileProjection> payload = new HashMap<>();
    if (items == null || items.isEmpty()) {
      data.forEach((k, v) -> payload.put(k, new FileProjection(v, defaultMode)));
      return payload;
    }
    for (KeyToPath item : items) {
      byte[] content = data.get(item.getKey());
      if (content == null) {
        if (optional) {
          continue;
        }
        throw new MissingKey(missing + item.getKey());
      }
      int mode = item.getMode() != null ? item.getMode() : defaultMode;
      payload.put(item.getPath(), new FileProjection(content, mode));
    }
    return payload;
  }

  private static byte[] decode(String base64) {
    return base64 == null ? new byte[0] : Base64.getMimeDecoder().decode(base64);
  }
}
