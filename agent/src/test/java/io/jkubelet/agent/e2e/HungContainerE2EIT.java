package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A hung container stays its own problem, on the real engine and a real API server: jkubelet talks
 * to the engine through an {@link EngineProxy} that holds every request for one container. The
 * container dies behind jkubelet's back, so the relist inspects it and the inspect hangs: its pod
 * gets a Warning {@code RuntimeCallHung}, while the Node stays Ready (its Ready condition, read
 * through the API) and another pod starts and is deleted as usual. Released, the pod recovers.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class HungContainerE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final EngineProxy proxy = startProxy();

  @RegisterExtension
  static final ClusterNode cluster =
      new ClusterNode(
          "hung",
          List.of(
              "--container-runtime-endpoint=" + proxy.endpoint(), "--runtime-request-timeout=30s"));

  private final String node = cluster.node;
  private final String ns = cluster.ns;

  private static EngineProxy startProxy() {
    try {
      return EngineProxy.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @AfterAll
  void closeProxy() throws Exception {
    if (cluster.jkubelet() != null) {
      cluster.jkubelet().stop(); // before its engine goes away
    }
    proxy.close();
  }

  @Test
  void theNodeStaysReadyAndOtherPodsComeAndGoWhileOneContainersCallsHang() throws Exception {
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "stuck",
            node,
            "  - {name: app, image: jkubelet/busybox:1.35, command: [sleep, '3600']}"));
    String id =
        await()
            .atMost(Duration.ofSeconds(90))
            .ignoreExceptions()
            .until(() -> runningContainerId("stuck"), c -> !c.isEmpty());

    EngineProxy.Hang hang = proxy.hang(id);
    // The container dies behind jkubelet's back: the relist sees it exit, and its inspect hangs.
    TestDocker.client().killContainerCmd(id).exec();
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(nodeReady()).isEqualTo("True");
              assertThat(warnings("stuck"))
                  .anySatisfy(
                      m ->
                          assertThat(m)
                              .startsWith(
                                  "ContainerStatus of container \"app\" ("
                                      + id.substring(0, 12)
                                      + ")")
                              .contains("has not returned after"));
            });
    assertThat(hang.held()).isNotEmpty();
    // The kubelet API's /pods lists the hung call on the pod.
    assertThat(
            podsOfNode("stuck")
                .path("metadata")
                .path("annotations")
                .path("jkubelet.io/runtime-calls-hung")
                .asText())
        .contains("\"call\":\"ContainerStatus\"")
        .contains("\"container\":\"app\"")
        .contains("has not returned after");

    // Other pods come and go while it hangs, and the node stays Ready.
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "other",
            node,
            "  - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600']}"));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> !runningContainerId("other").isEmpty());
    Kubectl.run("-n", ns, "delete", "pod", "other", "--wait=false").ok();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Kubectl.run("-n", ns, "get", "pod", "other").code() != 0);
    assertThat(nodeReady()).isEqualTo("True");
    assertThat(hang.released()).isFalse();

    // Released: the engine answers, and the pod's container is restarted as its policy says.
    hang.release();
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(
            () ->
                pod("stuck")
                        .path("status")
                        .path("containerStatuses")
                        .get(0)
                        .path("restartCount")
                        .asInt()
                    >= 1);
    assertThat(nodeReady()).isEqualTo("True");
  }

  private JsonNode pod(String name) throws Exception {
    return JSON.readTree(Kubectl.run("-n", ns, "get", "pod", name, "-o", "json").ok().out());
  }

  /** The pod with this name as the node's {@code /pods} has it, through the API server's proxy. */
  private JsonNode podsOfNode(String name) throws Exception {
    JsonNode items =
        JSON.readTree(
                Kubectl.run("get", "--raw", "/api/v1/nodes/" + node + "/proxy/pods").ok().out())
            .path("items");
    for (JsonNode p : items) {
      if (p.path("metadata").path("name").asText().equals(name)) {
        return p;
      }
    }
    throw new AssertionError("no pod " + name + " in the node's /pods: " + items);
  }

  /** The running container's ID, without {@code docker://}; "" while none runs. */
  private String runningContainerId(String name) throws Exception {
    JsonNode c = pod(name).path("status").path("containerStatuses").path(0);
    if (c.path("state").path("running").isMissingNode()) {
      return "";
    }
    return c.path("containerID").asText().replace("docker://", "");
  }

  /** The Node's Ready condition's status, as the API has it. */
  private String nodeReady() throws Exception {
    return Kubectl.run(
            "get", "node", node, "-o", "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}")
        .ok()
        .out()
        .trim();
  }

  /** The messages of the pod's {@code RuntimeCallHung} Warnings. */
  private List<String> warnings(String pod) throws Exception {
    return Kubectl.events(ns, pod).stream()
        .filter(e -> e.path("reason").asText().equals("RuntimeCallHung"))
        .filter(e -> e.path("type").asText().equals("Warning"))
        .map(e -> e.path("message").asText())
        .toList();
  }
}
