package io.jkubelet.agent.network;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A CNI network configuration list: a {@code .conflist}, or a single {@code .conf} or {@code .json}
 * network made into a list of one, as libcni's {@code ConfListFromConf}.
 *
 * @param source where it came from (a file's path, or "kubenet")
 * @param name the network's name
 * @param cniVersion the spec version of the configuration
 * @param plugins each plugin's configuration, in order
 * @param capabilities the capabilities that some plugin of the list declares true
 * @param bytes the list as it is sent and cached
 */
record NetworkList(
    String source,
    String name,
    String cniVersion,
    List<ObjectNode> plugins,
    Set<String> capabilities,
    byte[] bytes) {

  /** The built-in loopback network that every pod gets first, as dockershim's. */
  static final NetworkList LOOPBACK =
      parseList(
          "cni-loopback",
          "{\"cniVersion\":\"0.2.0\",\"name\":\"cni-loopback\",\"plugins\":[{\"type\":\"loopback\"}]}"
              .getBytes(java.nio.charset.StandardCharsets.UTF_8));

  NetworkList {
    plugins = List.copyOf(plugins);
    capabilities = Set.copyOf(capabilities);
  }

  /** Parses a file's content: a list when its name ends in {@code .conflist}. */
  static NetworkList parse(String file, byte[] content) throws IllegalArgumentException {
    return file.endsWith(".conflist") ? parseList(file, content) : parseSingle(file, content);
  }

  static NetworkList parseList(String source, byte[] content) {
    JsonNode root = json(content);
    String name = root.path("name").asText("");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("error parsing configuration list: no name");
    }
    JsonNode plugins = root.get("plugins");
    if (!(plugins instanceof ArrayNode list)) {
      throw new IllegalArgumentException("error parsing configuration list: no 'plugins' key");
    }
    if (list.isEmpty()) {
      throw new IllegalArgumentException("CNI config list has no networks");
    }
    List<ObjectNode> confs = new ArrayList<>();
    for (JsonNode p : list) {
      if (!(p instanceof ObjectNode o) || o.path("type").asText("").isEmpty()) {
        throw new IllegalArgumentException(
            "error parsing configuration list: a plugin has no 'type'");
      }
      confs.add(o);
    }
    return new NetworkList(
        source, name, root.path("cniVersion").asText(""), confs, capabilities(confs), content);
  }

  static NetworkList parseSingle(String source, byte[] content) {
    JsonNode root = json(content);
    if (root.path("type").asText("").isEmpty()) {
      throw new IllegalArgumentException("no 'type'; perhaps this is a .conflist?");
    }
    String name = root.path("name").asText("");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("error parsing configuration: missing 'name'");
    }
    ObjectNode list = CniExec.JSON.createObjectNode();
    list.put("cniVersion", root.path("cniVersion").asText(""));
    list.put("name", name);
    list.putArray("plugins").add(root);
    try {
      return parseList(source, CniExec.JSON.writeValueAsBytes(list));
    } catch (IOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  private static JsonNode json(byte[] content) {
    JsonNode root;
    try {
      root = CniExec.JSON.readTree(content);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(
          "malformed JSON: " + e.getOriginalMessage().lines().findFirst().orElse(""));
    } catch (IOException e) {
      throw new IllegalArgumentException("malformed JSON: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("malformed JSON: not an object");
    }
    return root;
  }

  private static Set<String> capabilities(List<ObjectNode> plugins) {
    Set<String> caps = new LinkedHashSet<>();
    for (ObjectNode p : plugins) {
      p.path("capabilities")
          .properties()
          .forEach(
              e -> {
                if (e.getValue().asBoolean(false)) {
                  caps.add(e.getKey());
                }
              });
    }
    return caps;
  }

  /** The plugin types, in order. */
  List<String> types() {
    return plugins.stream().map(p -> p.get("type").asText()).toList();
  }

  /**
   * Whether results of this version keep a previous result for DEL (spec 0.4.0 and later), as
   * libcni's cache does.
   */
  boolean cachesResults() {
    return SpecVersion.atLeast(cniVersion, "0.4.0");
  }
}
