package io.jkubelet.agent.network;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A network list's plugins run in turn, as libcni's {@code AddNetworkList} and {@code
 * DelNetworkList}: each plugin's configuration gets the list's name and version and the capability
 * arguments it declares ({@code runtimeConfig}); ADD hands each plugin the previous one's result,
 * DEL runs them in reverse with the cached result. The time spent in plugins is added to the
 * caller's counter. Thread-safe: it keeps no state of its own.
 */
record CniChain(CniExec exec, Clock clock) {

  JsonNode add(
      NetworkList network,
      Attachments.Attachment a,
      String netns,
      String ifName,
      Duration[] inPlugins)
      throws CniException {
    JsonNode prev = null;
    for (ObjectNode plugin : network.plugins()) {
      ObjectNode conf = conf(network, plugin, a.capabilityArgs());
      if (prev != null) {
        conf.set("prevResult", prev);
      }
      Instant t = clock.instant();
      try {
        prev =
            exec.exec(
                plugin.get("type").asText(),
                new CniExec.Call("ADD", a.sandboxId(), netns, ifName, a.args()),
                conf);
      } finally {
        inPlugins[0] = inPlugins[0].plus(Duration.between(t, clock.instant()));
      }
    }
    return prev;
  }

  void del(
      NetworkList network,
      Attachments.Attachment a,
      String netns,
      String ifName,
      JsonNode cached,
      Duration[] inPlugins)
      throws CniException {
    List<String> errors = new ArrayList<>();
    List<ObjectNode> plugins = new ArrayList<>(network.plugins());
    Collections.reverse(plugins);
    for (ObjectNode plugin : plugins) {
      ObjectNode conf = conf(network, plugin, a.capabilityArgs());
      if (cached != null) {
        conf.set("prevResult", cached);
      }
      Instant t = clock.instant();
      try {
        exec.exec(
            plugin.get("type").asText(),
            new CniExec.Call("DEL", a.sandboxId(), netns, ifName, a.args()),
            conf);
      } catch (CniException e) {
        errors.add(e.getMessage());
      } finally {
        inPlugins[0] = inPlugins[0].plus(Duration.between(t, clock.instant()));
      }
    }
    if (!errors.isEmpty()) {
      throw new CniException(String.join("; ", errors));
    }
  }

  /** As libcni's {@code buildOneConfig}: the list's name and version, the runtime config. */
  private static ObjectNode conf(NetworkList network, ObjectNode plugin, JsonNode capabilityArgs) {
    ObjectNode conf = plugin.deepCopy();
    conf.put("name", network.name());
    conf.put("cniVersion", network.cniVersion());
    ObjectNode runtimeConfig = CniExec.JSON.createObjectNode();
    plugin
        .path("capabilities")
        .properties()
        .forEach(
            e -> {
              if (e.getValue().asBoolean(false) && capabilityArgs.has(e.getKey())) {
                runtimeConfig.set(e.getKey(), capabilityArgs.get(e.getKey()));
              }
            });
    if (!runtimeConfig.isEmpty()) {
      conf.set("runtimeConfig", runtimeConfig);
    }
    return conf;
  }
}
