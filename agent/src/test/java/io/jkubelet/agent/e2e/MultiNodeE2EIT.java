package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Two jkubelet nodes of one cluster on this machine (deploy/scripts/bed-up.sh: kube-proxy on the
 * host, each node on a bridge of its own with the CNI plugins, host-local over its {@code
 * spec.podCIDR}), as an operator checks a multi-node cluster: a DaemonSet runs on every node, each
 * pod's address is unique and inside its node's pod CIDR, a pod reaches the pod of the other node
 * and a Service whose endpoints are on both, and a host port answers at its node's address.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(420)
class MultiNodeE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final String prefix = "mn-" + UUID.randomUUID().toString().substring(0, 6);
  private final String ns = prefix;
  private final Map<String, String> env = new HashMap<>();
  private List<String> nodes = List.of();

  @BeforeAll
  void bed() throws Exception {
    env.put("JKUBELET_BED_PREFIX", prefix);
    env.put("JKUBELET_BED_BRIDGE", "jkmn");
    env.put("JKUBELET_BED_NODE_NET", "10.251.0");
    env.put("JKUBELET_BED_FLAGS", "--node-labels=bed=" + prefix);
    nodes = script("bed-up.sh", "2").lines().filter(l -> l.startsWith(prefix)).toList();
    assertThat(nodes).hasSize(2);
    Kubectl.createNamespace(ns);
  }

  @AfterAll
  void down() throws Exception {
    Kubectl.run("delete", "namespace", ns, "--wait=false");
    script("bed-down.sh");
  }

  @Test
  void aDaemonSetsPodsHaveTheirNodesAddressesAndReachEachOtherAndAServiceOnBothNodes()
      throws Exception {
    Kubectl.apply(ns, daemonSet());
    Kubectl.apply(
        ns,
        """
        apiVersion: v1
        kind: Service
        metadata: {name: web}
        spec:
          selector: {app: web}
          ports: [{port: 80, targetPort: 8080}]
        """);
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> running().size() == 2 && running().values().stream().noneMatch(String::isEmpty));
    Map<String, String> ipByNode = running();
    assertThat(ipByNode.keySet()).containsExactlyInAnyOrderElementsOf(nodes);
    assertThat(new HashSet<>(ipByNode.values())).hasSize(2);
    for (var e : ipByNode.entrySet()) {
      assertThat(inCidr(e.getValue(), podCidr(e.getKey())))
          .as("%s's pod %s in %s", e.getKey(), e.getValue(), podCidr(e.getKey()))
          .isTrue();
    }

    // Pod to pod across nodes: each pod answers with its node's name.
    String first = podOn(nodes.get(0));
    String other = ipByNode.get(nodes.get(1));
    assertThat(get(first, other, 8080)).contains(nodes.get(1));

    // The Service's endpoints are on both nodes, and a pod reaches both through it.
    String clusterIp =
        JSON.readTree(Kubectl.run("-n", ns, "get", "service", "web", "-o", "json").ok().out())
            .path("spec")
            .path("clusterIP")
            .asText();
    // As an operator would: the Endpoints list both pods, and kube-proxy writes its rules for
    // them a moment later (it syncs asynchronously), so a connection may time out until then.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> endpoints("web").containsAll(ipByNode.values()));
    Set<String> answered = new HashSet<>();
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> {
              answered.add(get(first, clusterIp, 80).strip());
              return answered.containsAll(nodes);
            });
  }

  @Test
  void aHostPortAnswersAtItsNodesAddress() throws Exception {
    String node = nodes.get(1);
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "hostport",
            node,
            """
              - name: c
                image: jkubelet/busybox:1.35
                command: [sh, -c, 'mkdir -p /www && echo hostport-ok > /www/index.html && exec httpd -f -p 8080 -h /www']
                ports: [{containerPort: 8080, hostPort: 18181}]
            """));
    String nodeIp = internalIp(node);
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(() -> curl("http://" + nodeIp + ":18181/").contains("hostport-ok"));
  }

  private String daemonSet() {
    return """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: web}
        spec:
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec:
              nodeSelector: {bed: %s}
              terminationGracePeriodSeconds: 2
              containers:
              - name: c
                image: jkubelet/busybox:1.35
                env: [{name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]
                command: [sh, -c, 'mkdir -p /www && echo $NODE > /www/index.html && exec httpd -f -p 8080 -h /www']
                readinessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1}
        """
        .formatted(prefix);
  }

  /** The DaemonSet's ready pods: node to pod IP. */
  private Map<String, String> running() throws Exception {
    Map<String, String> out = new HashMap<>();
    for (JsonNode p : pods()) {
      boolean ready = false;
      for (JsonNode c : p.path("status").path("conditions")) {
        ready |=
            c.path("type").asText().equals("Ready") && c.path("status").asText().equals("True");
      }
      if (ready) {
        out.put(p.path("spec").path("nodeName").asText(), p.path("status").path("podIP").asText());
      }
    }
    return out;
  }

  private List<JsonNode> pods() throws Exception {
    List<JsonNode> out = new ArrayList<>();
    JSON.readTree(Kubectl.run("-n", ns, "get", "pods", "-l", "app=web", "-o", "json").ok().out())
        .path("items")
        .forEach(out::add);
    return out;
  }

  private String podOn(String node) throws Exception {
    return pods().stream()
        .filter(p -> p.path("spec").path("nodeName").asText().equals(node))
        .map(p -> p.path("metadata").path("name").asText())
        .findFirst()
        .orElseThrow();
  }

  /** The ready addresses of a Service's Endpoints. */
  private Set<String> endpoints(String service) throws Exception {
    Set<String> out = new HashSet<>();
    for (JsonNode subset :
        JSON.readTree(Kubectl.run("-n", ns, "get", "endpoints", service, "-o", "json").ok().out())
            .path("subsets")) {
      subset.path("addresses").forEach(a -> out.add(a.path("ip").asText()));
    }
    return out;
  }

  private String podCidr(String node) throws Exception {
    return JSON.readTree(Kubectl.run("get", "node", node, "-o", "json").ok().out())
        .path("spec")
        .path("podCIDR")
        .asText();
  }

  private String internalIp(String node) throws Exception {
    for (JsonNode a :
        JSON.readTree(Kubectl.run("get", "node", node, "-o", "json").ok().out())
            .path("status")
            .path("addresses")) {
      if (a.path("type").asText().equals("InternalIP")) {
        return a.path("address").asText();
      }
    }
    throw new AssertionError("node " + node + " has no InternalIP");
  }

  /**
   * The body of {@code GET /} at {@code host:port}, from inside {@code pod}, with busybox's {@code
   * nc} (its static {@code wget} crashes in this image).
   */
  private String get(String pod, String host, int port) throws Exception {
    String out =
        Kubectl.run(
                "-n",
                ns,
                "exec",
                pod,
                "--",
                "sh",
                "-c",
                "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 5 " + host + " " + port)
            .ok()
            .out();
    int body = out.indexOf("\r\n\r\n");
    return body < 0 ? "" : out.substring(body + 4);
  }

  static boolean inCidr(String ip, String cidr) throws IOException {
    String[] parts = cidr.split("/");
    byte[] a = InetAddress.getByName(ip).getAddress();
    byte[] n = InetAddress.getByName(parts[0]).getAddress();
    int bits = Integer.parseInt(parts[1]);
    for (int i = 0; i < bits; i++) {
      int mask = 0x80 >> (i % 8);
      if ((a[i / 8] & mask) != (n[i / 8] & mask)) {
        return false;
      }
    }
    return true;
  }

  private static String curl(String url) throws Exception {
    Process p =
        new ProcessBuilder("curl", "-s", "--max-time", "3", url).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }

  /** Runs a bed script on the tests' control plane; returns its stdout. */
  private String script(String name, String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(Kubectl.script(name).toString(), Kubectl.env("JKUBELET_TEST_K8S_STATE")));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(300, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(name + " did not finish in 300 s");
    }
    if (p.exitValue() != 0) {
      throw new AssertionError(name + " failed with exit code " + p.exitValue() + ": " + out);
    }
    return out;
  }
}
