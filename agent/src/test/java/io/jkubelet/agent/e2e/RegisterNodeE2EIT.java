package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import io.jkubelet.agent.runtime.Labels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --register-node=false} against a real control plane, as upstream's: the packaged jkubelet
 * joins with a node's identity and a static pod, creates no Node, and runs the static pod's
 * container all the same; once an admin creates the Node, jkubelet reports its status (Ready) and
 * renews its Lease, leaving its labels and taints to the admin.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class RegisterNodeE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final String node = "noreg-" + UUID.randomUUID().toString().substring(0, 8);
  private final String ns = "noreg-" + UUID.randomUUID().toString().substring(0, 8);
  private final DockerClient docker = TestDocker.client();
  private Path tmp;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeAll
  void start() throws Exception {
    tmp = Files.createTempDirectory("jkubelet-noreg");
    Path manifests = Files.createDirectories(tmp.resolve("manifests"));
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
                    "--node-ip",
                    "127.0.0.1",
                    "--register-node=false",
                    "--register-with-taints",
                    "never=set:NoSchedule",
                    "--node-labels",
                    "jkubelet.io/never=set",
                    "--node-status-update-frequency",
                    "2s"))
            .start();
  }

  @AfterAll
  void stop() throws Exception {
    if (jkubelet != null) {
      jkubelet.stop();
    }
    Kubectl.run("delete", "namespace", ns, "--wait=false");
    Kubectl.run("delete", "node", node, "--wait=false");
    TestDocker.removeAll(docker, Labels.NODE, node);
    TestMounts.unmountUnder(tmp);
    docker.close();
  }

  private boolean staticContainerRunning() {
    return TestDocker.withLabels(
            docker,
            Map.of(
                Labels.NODE, node, Labels.CONTAINER_NAME, "c", Labels.POD_NAME, "static-" + node))
        .stream()
        .anyMatch(c -> "running".equals(c.getState()));
  }

  private boolean nodeExists() throws Exception {
    return Kubectl.run("get", "node", node, "--no-headers").code() == 0;
  }

  /** One node's story, in order: no Node while it has none, then the one an admin creates. */
  @Test
  void noNodeIsCreatedAndTheStaticPodRunsUntilAnAdminCreatesTheNodeWhichIsThenTakenUp()
      throws Exception {
    await().atMost(Duration.ofSeconds(120)).until(this::staticContainerRunning);
    // Long enough for several status rounds (every 2 s) and any registration to have happened.
    await()
        .during(Duration.ofSeconds(10))
        .atMost(Duration.ofSeconds(15))
        .until(() -> !nodeExists() && jkubelet.alive());
    assertThat(Kubectl.run("-n", "kube-node-lease", "get", "lease", node).code())
        .as("no Lease without its Node")
        .isNotZero();
    assertThat(jkubelet.log()).contains("registerNode is false and node " + node);
    assertThat(staticContainerRunning()).isTrue();

    // An admin creates the Node.
    Kubectl.runWithInput(
            """
            apiVersion: v1
            kind: Node
            metadata:
              name: %s
              labels: {made-by: admin}
            """
                .formatted(node),
            "create",
            "-f",
            "-")
        .ok();

    await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> Kubectl.nodeReady(node));
    JsonNode n = JSON.readTree(Kubectl.run("get", "node", node, "-o", "json").ok().out());
    assertThat(n.path("metadata").path("labels").has("jkubelet.io/never")).isFalse();
    assertThat(n.path("metadata").path("labels").path("made-by").asText()).isEqualTo("admin");
    assertThat(n.path("spec").path("taints").isMissingNode()).as(n.toString()).isTrue();
    assertThat(n.path("status").path("nodeInfo").path("containerRuntimeVersion").asText())
        .startsWith("docker://");
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                JSON.readTree(
                        Kubectl.run("-n", "kube-node-lease", "get", "lease", node, "-o", "json")
                            .ok()
                            .out())
                    .path("metadata")
                    .path("ownerReferences")
                    .path(0)
                    .path("uid")
                    .asText()
                    .equals(n.path("metadata").path("uid").asText()));
    // With its Node there, the static pod gets its mirror, as upstream's.
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(() -> Kubectl.run("-n", ns, "get", "pod", "static-" + node).code() == 0);
    assertThat(staticContainerRunning()).isTrue();
  }
}
