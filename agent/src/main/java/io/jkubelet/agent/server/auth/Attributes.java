package io.jkubelet.agent.server.auth;

/**
 * What a request asks to do, in SubjectAccessReview terms. Upstream's kubelet maps every request
 * onto the node object: see {@link #of}.
 *
 * @param verb {@code get}, {@code create}, {@code update}, {@code patch} or {@code delete} (empty
 *     for other methods)
 * @param resource always {@code nodes}
 * @param subresource {@code stats}, {@code metrics}, {@code log}, {@code spec} or {@code proxy}
 * @param name the node's name
 * @param path the request path
 */
public record Attributes(
    String verb, String resource, String subresource, String name, String path) {

  /**
   * Upstream's mapping ({@code pkg/kubelet/server/auth.go}): the verb from the HTTP method,
   * resource {@code nodes} named after this node, subresource by path ({@code /stats}, {@code
   * /metrics}, {@code /logs}, {@code /spec} and what lies under them), else {@code proxy}.
   */
  public static Attributes of(String method, String path, String nodeName) {
    String verb =
        switch (method) {
          case "POST" -> "create";
          case "GET" -> "get";
          case "PUT" -> "update";
          case "PATCH" -> "patch";
          case "DELETE" -> "delete";
          default -> "";
        };
    String sub = "proxy";
    if (isSubpath(path, "/stats/")) {
      sub = "stats";
    } else if (isSubpath(path, "/metrics")) {
      sub = "metrics";
    } else if (isSubpath(path, "/logs/")) {
      sub = "log";
    } else if (isSubpath(path, "/spec/")) {
      sub = "spec";
    }
    return new Attributes(verb, "nodes", sub, nodeName, path);
  }

  static boolean isSubpath(String subpath, String path) {
    String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    return subpath.equals(p) || (subpath.startsWith(p) && subpath.charAt(p.length()) == '/');
  }
}
