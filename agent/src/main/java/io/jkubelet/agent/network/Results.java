package io.jkubelet.agent.network;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the pod's addresses from a CNI ADD result: {@code ips} (spec 0.3.0 and later) or {@code
 * ip4}/{@code ip6} (0.1.0, 0.2.0). Only addresses on an interface inside the sandbox count, where
 * the result names interfaces. One per family, IPv4 first.
 */
final class Results {
  private Results() {}

  static List<String> ips(JsonNode result) {
    if (result == null || result.isNull()) {
      return List.of();
    }
    List<String> found = new ArrayList<>();
    JsonNode ips = result.path("ips");
    JsonNode interfaces = result.path("interfaces");
    for (JsonNode ip : ips) {
      JsonNode index = ip.get("interface");
      if (index != null && index.isInt() && interfaces.isArray()) {
        JsonNode iface = interfaces.path(index.asInt());
        if (iface.path("sandbox").asText("").isEmpty()) {
          continue; // the host's end of a veth, or the bridge
        }
      }
      found.add(address(ip.path("address").asText("")));
    }
    for (String legacy : List.of("ip4", "ip6")) {
      if (result.path(legacy).has("ip")) {
        found.add(address(result.path(legacy).path("ip").asText("")));
      }
    }
    String v4 = found.stream().filter(a -> !a.isEmpty() && !a.contains(":")).findFirst().orElse("");
    String v6 = found.stream().filter(a -> a.contains(":")).findFirst().orElse("");
    List<String> out = new ArrayList<>();
    if (!v4.isEmpty()) {
      out.add(v4);
    }
    if (!v6.isEmpty()) {
      out.add(v6);
    }
    return List.copyOf(out);
  }

  private static String address(String cidr) {
    int slash = cidr.indexOf('/');
    return slash < 0 ? cidr : cidr.substring(0, slash);
  }
}
