package io.jkubelet.agent.credentials;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jkubelet.agent.util.Errors;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads Docker configs as upstream's {@code credentialprovider} does: a {@code config.json} (and a
 * {@code kubernetes.io/dockerconfigjson} secret) is {@code {"auths": {location: entry}}}; a legacy
 * {@code .dockercfg} (and a {@code kubernetes.io/dockercfg} secret) is the bare map. An entry has
 * {@code username}, {@code password} and {@code email}, or an {@code auth} of {@code
 * base64(username:password)} that wins over them; other fields are ignored and, as in Go, field
 * names match whatever their case. Pure functions.
 */
public final class DockerConfigs {
  private DockerConfigs() {}

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A {@code config.json}: the map under {@code auths} (empty when there is none). */
  public static Map<String, AuthConfig> parseConfigJson(byte[] json) throws InvalidDockerConfig {
    JsonNode root = read(json);
    if (root.isNull()) {
      return Map.of();
    }
    if (!root.isObject()) {
      throw new InvalidDockerConfig("a Docker config.json must be a JSON object");
    }
    JsonNode headers = field(root, "HttpHeaders");
    if (headers != null && !headers.isNull() && !headers.isObject()) {
      throw new InvalidDockerConfig("HttpHeaders must be a JSON object");
    }
    JsonNode auths = field(root, "auths");
    return auths == null ? Map.of() : entries(auths);
  }

  /** A legacy {@code .dockercfg}: the bare map of locations to entries. */
  public static Map<String, AuthConfig> parseDockercfg(byte[] json) throws InvalidDockerConfig {
    return entries(read(json));
  }

  private static JsonNode read(byte[] json) throws InvalidDockerConfig {
    try {
      JsonNode node = JSON.readTree(json);
      if (node == null || node.isMissingNode()) {
        throw new InvalidDockerConfig("unexpected end of JSON input");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw Errors.withCause(new InvalidDockerConfig("invalid JSON: " + e.getOriginalMessage()), e);
    } catch (java.io.IOException e) {
      throw Errors.withCause(new InvalidDockerConfig("invalid JSON: " + e.getMessage()), e);
    }
  }

  private static Map<String, AuthConfig> entries(JsonNode map) throws InvalidDockerConfig {
    if (map.isNull()) {
      return Map.of();
    }
    if (!map.isObject()) {
      throw new InvalidDockerConfig("the registry credentials must be a JSON object");
    }
    Map<String, AuthConfig> out = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = map.fields();
    while (it.hasNext()) {
      var e = it.next();
      out.put(e.getKey(), entry(e.getKey(), e.getValue()));
    }
    return out;
  }

  private static AuthConfig entry(String location, JsonNode node) throws InvalidDockerConfig {
    if (node.isNull()) {
      return new AuthConfig("", "", "");
    }
    if (!node.isObject()) {
      throw new InvalidDockerConfig("the entry for \"" + location + "\" must be a JSON object");
    }
    String username = string(node, "username", location);
    String password = string(node, "password", location);
    String email = string(node, "email", location);
    String auth = string(node, "auth", location);
    if (auth.isEmpty()) {
      return new AuthConfig(username, password, email);
    }
    String[] decoded = decodeAuth(auth);
    return new AuthConfig(decoded[0], decoded[1], email);
  }

  /**
   * The user name and password of an {@code auth} field, {@code base64(username:password)}, padded
   * or not; as Go's decoder, line breaks are skipped and any other stray character fails.
   */
  static String[] decodeAuth(String field) throws InvalidDockerConfig {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(field.replace("\r", "").replace("\n", ""));
    } catch (IllegalArgumentException e) {
      throw Errors.withCause(new InvalidDockerConfig("illegal base64 data in an auth field"), e);
    }
    String decoded = new String(bytes, StandardCharsets.UTF_8);
    int colon = decoded.indexOf(':');
    if (colon < 0) {
      throw new InvalidDockerConfig(
          "unable to parse auth field, must be formatted as base64(username:password)");
    }
    return new String[] {decoded.substring(0, colon), decoded.substring(colon + 1)};
  }

  private static String string(JsonNode node, String name, String location)
      throws InvalidDockerConfig {
    JsonNode v = field(node, name);
    if (v == null || v.isNull()) {
      return "";
    }
    if (!v.isTextual()) {
      throw new InvalidDockerConfig(
          "the " + name + " of \"" + location + "\" must be a JSON string");
    }
    return v.textValue();
  }

  /** The field of that name, matched exactly first and else whatever its case, as Go's json. */
  private static JsonNode field(JsonNode node, String name) {
    JsonNode exact = node.get(name);
    if (exact != null) {
      return exact;
    }
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String n = names.next();
      if (n.equalsIgnoreCase(name)) {
        return node.get(n);
      }
    }
    return null;
  }
}
