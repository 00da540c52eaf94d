package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A cluster-mode node with {@code --network-plugin=cni} and Debian's CNI plugins (bridge with
 * host-local, portmap, firewall: Docker's FORWARD policy drops what no rule accepts), as an
 * operator sees it through {@code kubectl}: NotReady with upstream's message until a configuration
 * appears, then Ready without a restart; pods with unique addresses from the configured range,
 * released when they go, even those whose sandboxes vanished while jkubelet was down; a host port.
 *
 * <p>Each run has a bridge, a /24 of 10.88.0.0/16 and directories of its own; the bridge is removed
 * afterwards. The tests share the node but not an order: each sets the configuration it starts from
 * ({@link #noNetworkConfig}, {@link #networkConfigured}) and uses pods of its own.
 */
@Timeout(300)
class NetworkE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int NET = ThreadLocalRandom.current().nextInt(1, 250);
  private static final String SUBNET = "10.88." + NET + ".0/24";
  private static final String BRIDGE = "jkt" + NET;
  private static final Path DIR = tempDir();
  private static final Path CONF = DIR.resolve("net.d");
  private static final Path CACHE = DIR.resolve("cache");
  private static final Path IPAM = DIR.resolve("ipam");
  private static final String CNI_BIN = "/usr/lib/cni";
  private static final String NOT_READY =
      "runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady"
          + " message:docker: network plugin is not ready: cni config uninitialized";

  @RegisterExtension
  static final ClusterNode cluster =
      new ClusterNode(
          "net",
          List.of(
              "--network-plugin=cni",
              "--cni-conf-dir=" + CONF,
              "--cni-bin-dir=/nonexistent," + CNI_BIN,
              "--cni-cache-dir=" + CACHE),
          false);

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("jkubelet-net");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The pods go while jkubelet runs, so that it DELs their attachments (portmap's and firewall's
   * rules are the host's, not the bridge's); then the bridge goes.
   */
  @AfterAll
  static void removePodsAndBridge() throws Exception {
    Kubectl.run("-n", cluster.ns, "delete", "pods", "--all", "--wait=false");
    await().atMost(Duration.ofSeconds(60)).until(() -> cachedPodNames().isEmpty());
    new ProcessBuilder("ip", "link", "del", BRIDGE).inheritIO().start().waitFor();
  }

  @Test
  void aNodeWithoutAConfigIsNotReadyAndReadyOnceOneAppearsWithoutARestart() throws Exception {
    noNetworkConfig();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> ready().path("message").asText().contains(NOT_READY));
    assertThat(ready().path("status").asText()).isEqualTo("False");

    // A host-network pod runs (as a CNI DaemonSet installs itself); a pod on the network waits.
    Kubectl.apply(cluster.ns, hostNetworkPod("installer"));
    Kubectl.apply(cluster.ns, Kubectl.boundPod("waiter", cluster.node, sleeper()));
    await().atMost(Duration.ofSeconds(60)).until(() -> phase("installer").equals("Running"));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                Kubectl.events(cluster.ns, "waiter").stream()
                    .anyMatch(
                        e ->
                            e.path("reason").asText().equals("NetworkNotReady")
                                && e.path("message")
                                    .asText()
                                    .startsWith("network is not ready: " + NOT_READY)));
    assertThat(phase("waiter")).isEqualTo("Pending");

    // A rejected file is named with its reason, where upstream says only "uninitialized".
    Files.createDirectories(CONF);
    Files.writeString(CONF.resolve("05-broken.conflist"), "{\"cniVersion\": \"0.4.0\", \"name\": ");
    Files.writeString(
        CONF.resolve("07-missing.conflist"),
        "{\"cniVersion\":\"0.4.0\",\"name\":\"m\",\"plugins\":[{\"type\":\"no-such-plugin\"}]}");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              String m = ready().path("message").asText();
              return m.contains("05-broken.conflist: malformed JSON")
                  && m.contains("07-missing.conflist: failed to find plugin \"no-such-plugin\"");
            });

    // The DaemonSet writes its configuration: Ready, and the waiting pod runs on the network.
    Files.writeString(CONF.resolve("10-test.conflist"), conflist());
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> ready().path("status").asText().equals("True"));
    await().atMost(Duration.ofSeconds(60)).until(() -> phase("waiter").equals("Running"));
    assertThat(podIp("waiter")).startsWith("10.88." + NET + ".");
  }

  @Test
  void podsGetUniqueAddressesOfTheRangeThatAreReleasedWhenTheyGo() throws Exception {
    networkConfigured();
    List<String> names = List.of("a", "b", "c");
    for (String n : names) {
      Kubectl.apply(cluster.ns, Kubectl.boundPod(n, cluster.node, sleeper()));
    }
    for (String n : names) {
      await().atMost(Duration.ofSeconds(60)).until(() -> phase(n).equals("Running"));
    }
    Set<String> ips = new HashSet<>();
    for (String n : names) {
      JsonNode status = pod(n).path("status");
      assertThat(status.path("podIPs")).hasSize(1);
      assertThat(status.path("podIPs").path(0).path("ip").asText()).isEqualTo(podIp(n));
      ips.add(podIp(n));
    }
    assertThat(ips).hasSize(3).allMatch(ip -> ip.startsWith("10.88." + NET + "."));
    assertThat(allocated()).containsAll(ips);

    // Pod to pod across the bridge.
    List<String> list = new ArrayList<>(ips);
    assertThat(cachedPodNames()).contains("a", "b", "c");
    assertThat(
            Kubectl.run(
                    "-n", cluster.ns, "exec", "a", "--", "ping", "-c", "1", "-W", "5", podIp("b"))
                .code())
        .isZero();

    Kubectl.run("-n", cluster.ns, "delete", "pod", "a", "b", "c", "--wait=true").ok();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> allocated().stream().noneMatch(list::contains));
    assertThat(cachedPodNames()).doesNotContain("a", "b", "c");
  }

  @Test
  void aHostPortAnswersAtTheNodesAddress() throws Exception {
    networkConfigured();
    Kubectl.apply(
        cluster.ns,
        Kubectl.boundPod(
            "web",
            cluster.node,
            """
              - name: c
                image: jkubelet/busybox:1.35
                command: [sh, -c, 'mkdir -p /www && echo hello-hostport > /www/index.html && exec httpd -f -p 8080 -h /www']
                ports: [{containerPort: 8080, hostPort: 18%03d}]
            """
                .formatted(NET)));
    await().atMost(Duration.ofSeconds(60)).until(() -> phase("web").equals("Running"));
    String gateway = "10.88." + NET + ".1";
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> curl(gateway + ":18%03d".formatted(NET)).contains("hello-hostport"));
  }

  @Test
  void anAddressOfAPodWhoseSandboxVanishedWhileJkubeletWasDownIsReleased() throws Exception {
    networkConfigured();
    Kubectl.apply(cluster.ns, Kubectl.boundPod("ghost", cluster.node, sleeper()));
    await().atMost(Duration.ofSeconds(60)).until(() -> phase("ghost").equals("Running"));
    String ip = podIp("ghost");
    assertThat(allocated()).contains(ip);

    cluster.jkubelet().stop();
    String uid = pod("ghost").path("metadata").path("uid").asText();
    for (var c :
        TestDocker.client()
            .listContainersCmd()
            .withShowAll(true)
            .withLabelFilter(java.util.Map.of("io.kubernetes.pod.uid", uid))
            .exec()) {
      TestDocker.client().removeContainerCmd(c.getId()).withForce(true).exec();
    }
    Kubectl.run("-n", cluster.ns, "delete", "pod", "ghost", "--grace-period=0", "--force").ok();
    cluster.jkubelet().start();

    await().atMost(Duration.ofSeconds(90)).until(() -> !allocated().contains(ip));
  }

  /**
   * No CNI configuration: the node is NotReady (jkubelet reads the directory again every 2 s),
   * whichever test ran before.
   */
  private static void noNetworkConfig() throws IOException {
    if (Files.isDirectory(CONF)) {
      try (Stream<Path> files = Files.list(CONF)) {
        for (Path f : files.toList()) {
          Files.delete(f);
        }
      }
    }
  }

  /** The test's configuration written (as the first test's DaemonSet does) and the node Ready. */
  private static void networkConfigured() throws Exception {
    Files.createDirectories(CONF);
    Files.writeString(CONF.resolve("10-test.conflist"), conflist());
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> ready().path("status").asText().equals("True"));
  }

  private static String sleeper() {
    return "  - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600']}";
  }

  private static String hostNetworkPod(String name) {
    return Kubectl.boundPod(name, cluster.node, sleeper())
        .replace("  nodeName:", "  hostNetwork: true\n  nodeName:");
  }

  private static String conflist() {
    return """
        {"cniVersion": "0.4.0", "name": "jkt-%d", "plugins": [
          {"type": "bridge", "bridge": "%s", "isGateway": true, "ipMasq": false,
           "ipam": {"type": "host-local", "dataDir": "%s",
                    "ranges": [[{"subnet": "%s"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
          {"type": "portmap", "capabilities": {"portMappings": true}},
          {"type": "firewall"}
        ]}
        """
        .formatted(NET, BRIDGE, IPAM, SUBNET);
  }

  /** The addresses host-local has handed out and not released. */
  private static List<String> allocated() throws IOException {
    Path dir = IPAM.resolve("jkt-" + NET);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("10.")).toList();
    }
  }

  /** The pods that libcni's cache holds an attachment of (its {@code K8S_POD_NAME}). */
  private static List<String> cachedPodNames() throws IOException {
    Path dir = CACHE.resolve("results");
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir)) {
      for (Path f : s.toList()) {
        for (JsonNode kv : JSON.readTree(f.toFile()).path("cniArgs")) {
          if (kv.path(0).asText().equals("K8S_POD_NAME")) {
            names.add(kv.path(1).asText());
          }
        }
      }
    }
    return names;
  }

  private static JsonNode ready() throws Exception {
    JsonNode node =
        JSON.readTree(Kubectl.run("get", "node", cluster.node, "-o", "json").ok().out());
    for (JsonNode c : node.path("status").path("conditions")) {
      if (c.path("type").asText().equals("Ready")) {
        return c;
      }
    }
    return JSON.createObjectNode();
  }

  private static JsonNode pod(String name) throws Exception {
    return JSON.readTree(
        Kubectl.run("-n", cluster.ns, "get", "pod", name, "-o", "json").ok().out());
  }

  private static String phase(String name) throws Exception {
    return pod(name).path("status").path("phase").asText();
  }

  private static String podIp(String name) throws Exception {
    return pod(name).path("status").path("podIP").asText();
  }

  private static String curl(String hostPort) throws Exception {
    Process p =
        new ProcessBuilder("curl", "-s", "--max-time", "3", "http://" + hostPort + "/")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    p.waitFor();
    return out;
  }
}
