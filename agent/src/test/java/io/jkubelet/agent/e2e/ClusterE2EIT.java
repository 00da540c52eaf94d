package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import io.jkubelet.agent.runtime.Labels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * jkubelet in cluster mode, end to end: the packaged launcher runs as a process with {@code
 * --kubeconfig} against a real kube-apiserver and the real Docker Engine, and the tests assert with
 * {@code kubectl}, as an operator watches a node.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(300)
class ClusterE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final String node = "e2e-" + UUID.randomUUID().toString().substring(0, 8);
  private final String ns = "jk-" + UUID.randomUUID().toString().substring(0, 8);
  private final DockerClient docker = TestDocker.client();
  private Path tmp;
  private Path manifests;
  private JkubeletProcess jkubelet;

  /** Serves the manifest URL: a Pod, or 404 once a test sets it empty. */
  private com.sun.net.httpserver.HttpServer manifestServer;

  private final java.util.concurrent.atomic.AtomicReference<String> served =
      new java.util.concurrent.atomic.AtomicReference<>();

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeAll
  void start() throws Exception {
    tmp = Files.createTempDirectory("jkubelet-cluster");
    manifests = Files.createDirectories(tmp.resolve("manifests"));
    Files.writeString(
        manifests.resolve("static.yaml"),
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: static, namespace: %s}
        spec:
          terminationGracePeriodSeconds: 2
          containers:
          - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600']}
        """
            .formatted(ns));
    served.set(
        """
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "fromurl", "namespace": "%s"},
         "spec": {"terminationGracePeriodSeconds": 2, "containers": [{"name": "c",
           "image": "jkubelet/busybox:1.35", "command": ["sleep", "3600"]}]}}
        """
            .formatted(ns));
    manifestServer =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    manifestServer.createContext(
        "/pods",
        ex -> {
          String body = served.get();
          byte[] b =
              body == null ? new byte[0] : body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
          ex.sendResponseHeaders(body == null ? 404 : 200, b.length == 0 ? -1 : b.length);
          ex.getResponseBody().write(b);
          ex.close();
        });
    manifestServer.start();
    Kubectl.createNamespace(ns);
    jkubelet =
        new JkubeletProcess(
                node,
                manifests,
                tmp.resolve("root"),
                tmp.resolve("jkubelet.log"),
                List.of(
                    "--kubeconfig",
                    Kubectl.nodeKubeconfig(node).toString(),
                    "--node-labels",
                    "jkubelet.io/test=e2e",
                    "--node-ip",
                    "127.0.0.1",
                    "--manifest-url",
                    "http://127.0.0.1:" + manifestServer.getAddress().getPort() + "/pods",
                    "--http-check-frequency",
                    "2s"))
            .start();
  }

  @AfterAll
  void stop() throws Exception {
    if (manifestServer != null) {
      manifestServer.stop(0);
    }
    if (jkubelet != null) {
      jkubelet.stop();
    }
    Kubectl.run("delete", "namespace", ns, "--wait=false");
    Kubectl.run("delete", "node", node, "--wait=false");
    TestDocker.removeAll(docker, Labels.NODE, node);
    TestMounts.unmountUnder(tmp);
  }

  private JsonNode json(String... args) throws Exception {
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "-o";
    all[args.length + 1] = "json";
    return JSON.readTree(Kubectl.run(all).ok().out());
  }

  private static String condition(JsonNode obj, String type) {
    for (JsonNode c : obj.path("status").path("conditions")) {
      if (type.equals(c.path("type").asText())) {
        return c.path("status").asText();
      }
    }
    return "";
  }

  /** The row of `kubectl get pod NAME` as columns: NAME READY STATUS RESTARTS AGE. */
  private String[] getPodRow(String name) throws Exception {
    String out = Kubectl.run("-n", ns, "get", "pod", name, "--no-headers").ok().out().trim();
    return out.split("\\s+");
  }

  private void apply(String yaml) throws Exception {
    Kubectl.apply(ns, yaml);
  }

  private String pod(String name, String command) {
    return Kubectl.boundPod(
        name,
        node,
        "  - {name: c, image: jkubelet/busybox:1.35, command: [sh, -c, \"" + command + "\"]}");
  }

  @Test
  @Order(1)
  void theNodeRegistersAndIsReadyWithItsCapacity() throws Exception {
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> "True".equals(condition(json("get", "node", node), "Ready")));
    JsonNode n = json("get", "node", node);
    assertThat(n.path("metadata").path("labels").path("kubernetes.io/hostname").asText())
        .isEqualTo(node);
    assertThat(n.path("metadata").path("labels").path("jkubelet.io/test").asText())
        .isEqualTo("e2e");
    assertThat(n.path("status").path("capacity").path("pods").asText()).isEqualTo("110");
    assertThat(n.path("status").path("capacity").path("cpu").asText()).isNotEmpty();
    assertThat(n.path("status").path("capacity").path("memory").asText()).isNotEmpty();
    assertThat(n.path("status").path("nodeInfo").path("containerRuntimeVersion").asText())
        .startsWith("docker://");
    assertThat(Kubectl.run("get", "nodes", node, "--no-headers").ok().out()).contains(" Ready ");
    JsonNode lease = json("-n", "kube-node-lease", "get", "lease", node);
    assertThat(lease.path("spec").path("leaseDurationSeconds").asInt()).isEqualTo(40);
  }

  @Test
  @Order(2)
  void aPodBoundToTheNodeRunsAndIsReady() throws Exception {
    apply(pod("hello", "exec sleep 3600"));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              String[] row = getPodRow("hello");
              assertThat(row[1]).isEqualTo("1/1");
              assertThat(row[2]).isEqualTo("Running");
            });
    JsonNode p = json("-n", ns, "get", "pod", "hello");
    assertThat(p.path("status").path("podIP").asText()).isNotEmpty();
    assertThat(p.path("status").path("hostIP").asText()).isEqualTo("127.0.0.1");
    assertThat(p.path("status").path("containerStatuses").get(0).path("containerID").asText())
        .startsWith("docker://");
    assertThat(condition(p, "Ready")).isEqualTo("True");
  }

  @Test
  @Order(2)
  void aPodTheNodeCannotHoldIsRejectedAsFailedWithTheReason() throws Exception {
    apply(
        pod("huge", "exec sleep 3600")
            .replace(
                "command: [sh, -c, \"exec sleep 3600\"]}",
                "command: [sh, -c, \"exec sleep 3600\"], resources: {requests: {cpu: '1000'}}}"));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode p = json("-n", ns, "get", "pod", "huge");
              assertThat(p.path("status").path("phase").asText()).isEqualTo("Failed");
              assertThat(p.path("status").path("reason").asText()).isEqualTo("OutOfcpu");
              assertThat(p.path("status").path("message").asText())
                  .startsWith(
                      "Pod Node didn't have enough resource: cpu, requested: 1000000, used: ");
              assertThat(getPodRow("huge")[2]).isEqualTo("OutOfcpu");
            });
    String uid = json("-n", ns, "get", "pod", "huge").path("metadata").path("uid").asText();
    assertThat(TestDocker.withLabels(docker, Map.of(Labels.POD_UID, uid))).isEmpty();
  }

  @Test
  @Order(3)
  void aCrashingPodShowsCrashLoopBackOffWithAGrowingRestartCount() throws Exception {
    apply(pod("crash", "exit 1"));
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              String[] row = getPodRow("crash");
              assertThat(row[2]).isEqualTo("CrashLoopBackOff");
              assertThat(Integer.parseInt(row[3])).isGreaterThanOrEqualTo(2);
            });
    // Done with it: a crash loop goes on by itself, and later tests compare what runs.
    Kubectl.run("-n", ns, "delete", "pod", "crash", "--timeout=60s").ok();
  }

  @Test
  @Order(4)
  void kubectlDeleteCompletesAndTheContainersAreGone() throws Exception {
    apply(pod("doomed", "trap 'exit 0' TERM; while true; do sleep 0.2; done"));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> "Running".equals(getPodRow("doomed")[2]));
    String uid = json("-n", ns, "get", "pod", "doomed").path("metadata").path("uid").asText();
    Kubectl.run("-n", ns, "delete", "pod", "doomed", "--timeout=60s").ok();
    assertThat(Kubectl.run("-n", ns, "get", "pod", "doomed").code()).isNotZero();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> TestDocker.withLabels(docker, Map.of(Labels.POD_UID, uid)).isEmpty());
  }

  @Test
  @Order(5)
  void aStaticPodGetsAMirrorThatShowsItsStatusAndComesBackWhenDeleted() throws Exception {
    String mirror = "static-" + node;
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode m = json("-n", ns, "get", "pod", mirror);
              assertThat(m.path("metadata").path("annotations").has("kubernetes.io/config.mirror"))
                  .isTrue();
              assertThat(m.path("metadata").path("ownerReferences").get(0).path("kind").asText())
                  .isEqualTo("Node");
              assertThat(m.path("status").path("phase").asText()).isEqualTo("Running");
              assertThat(getPodRow(mirror)[1]).isEqualTo("1/1");
            });
    String before = json("-n", ns, "get", "pod", mirror).path("metadata").path("uid").asText();
    String container =
        json("-n", ns, "get", "pod", mirror)
            .path("status")
            .path("containerStatuses")
            .get(0)
            .path("containerID")
            .asText();
    Kubectl.run("-n", ns, "delete", "pod", mirror, "--wait=false").ok();
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode m = json("-n", ns, "get", "pod", mirror);
              assertThat(m.path("metadata").path("uid").asText()).isNotEqualTo(before);
              assertThat(m.path("status").path("phase").asText()).isEqualTo("Running");
            });
    // The static pod itself was never touched.
    assertThat(
            json("-n", ns, "get", "pod", mirror)
                .path("status")
                .path("containerStatuses")
                .get(0)
                .path("containerID")
                .asText())
        .isEqualTo(container);
  }

  private Map<String, String> running() {
    return TestDocker.withLabels(docker, Map.of(Labels.NODE, node)).stream()
        .filter(c -> "running".equals(c.getState()))
        .collect(Collectors.toMap(Container::getId, c -> c.getNames()[0]));
  }

  @Test
  @Order(6)
  void anApiServerOutageOfAMinuteChangesNothingOnTheNode() throws Exception {
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> "Running".equals(getPodRow("hello")[2]));
    Map<String, String> before = running();
    Kubectl.killApiServer();
    try {
      // A minute without the API server: every container keeps running, nothing restarts.
      await()
          .during(Duration.ofSeconds(60))
          .atMost(Duration.ofSeconds(75))
          .untilAsserted(() -> assertThat(running()).isEqualTo(before));
      assertThat(jkubelet.alive()).isTrue();
    } finally {
      Kubectl.controlPlaneUp();
    }
    // Within 10 s of its return, the node and the pods converge; nothing was duplicated.
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(condition(json("get", "node", node), "Ready")).isEqualTo("True");
              assertThat(getPodRow("hello")[2]).isEqualTo("Running");
            });
    assertThat(running()).isEqualTo(before);
  }

  @Test
  @Order(7)
  void removingAStaticPodsManifestRemovesItsMirror() throws Exception {
    String mirror = "static-" + node;
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> "Running".equals(getPodRow(mirror)[2]));
    Files.delete(manifests.resolve("static.yaml"));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> Kubectl.run("-n", ns, "get", "pod", mirror).code() != 0);
  }

  @Test
  @Order(8)
  void aStaticPodFromTheManifestUrlRunsWithAMirrorAndGoesWhenTheUrlAnswers404() throws Exception {
    String mirror = "fromurl-" + node;
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode m = json("-n", ns, "get", "pod", mirror);
              assertThat(
                      m.path("metadata")
                          .path("annotations")
                          .path("kubernetes.io/config.source")
                          .asText())
                  .isEqualTo("http");
              assertThat(getPodRow(mirror)[2]).isEqualTo("Running");
            });
    String uid =
        json("-n", ns, "get", "pod", mirror)
            .path("metadata")
            .path("annotations")
            .path("kubernetes.io/config.mirror")
            .asText();
    served.set(null);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                Kubectl.run("-n", ns, "get", "pod", mirror).code() != 0
                    && TestDocker.withLabels(docker, Map.of(Labels.POD_UID, uid)).isEmpty());
  }

  @Test
  @Order(9)
  void podsDeletedWhileJkubeletWasDownAreOnlyStoppedAndTheirDeletionFinishes() throws Exception {
    String loop = "trap 'exit 0' TERM; while true; do sleep 0.2; done";
    apply(pod("left-running", loop));
    apply(pod("rebooted", loop));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () ->
                "Running".equals(getPodRow("left-running")[2])
                    && "Running".equals(getPodRow("rebooted")[2]));
    String running =
        json("-n", ns, "get", "pod", "left-running").path("metadata").path("uid").asText();
    String rebooted =
        json("-n", ns, "get", "pod", "rebooted").path("metadata").path("uid").asText();

    // Deleted while no kubelet runs on the node: the API server only marks them. One keeps its
    // containers; the other's are gone, as after a reboot of the node.
    jkubelet.stop();
    Kubectl.run("-n", ns, "delete", "pod", "left-running", "rebooted", "--wait=false").ok();
    TestDocker.removeAll(docker, Labels.POD_UID, rebooted);
    jkubelet.start();

    // Back, jkubelet stops the one and starts nothing of the other, and both deletions finish.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                Kubectl.run("-n", ns, "get", "pod", "left-running").code() != 0
                    && Kubectl.run("-n", ns, "get", "pod", "rebooted").code() != 0);
    assertThat(TestDocker.withLabels(docker, Map.of(Labels.POD_UID, rebooted))).isEmpty();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> TestDocker.withLabels(docker, Map.of(Labels.POD_UID, running)).isEmpty());
  }
}
