package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.jkubelet.agent.runtime.Labels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Image pull credentials end to end, against a real private registry ({@link TestRegistry}: TLS,
 * htpasswd) holding images that the engine does not have: a pod's {@code imagePullSecrets} read
 * through the API server, a pull without or with the wrong credential failing as upstream's ({@code
 * ErrImagePull}, then {@code ImagePullBackOff}, and the {@code Failed} event), and the node's own
 * Docker config file for a static pod of a standalone jkubelet.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class ImagePullSecretsE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BUSYBOX = "jkubelet/busybox:1.35";

  @RegisterExtension static final ClusterNode cluster = new ClusterNode("pull");

  private final String node = cluster.node;
  private final String ns = cluster.ns;
  private final String id = UUID.randomUUID().toString().substring(0, 8);
  private final DockerClient docker = TestDocker.client();
  private TestRegistry registry;
  private String withSecret;
  private String refused;
  private String withNodeConfig;

  @BeforeAll
  void startRegistry() throws Exception {
    registry =
        TestRegistry.start(docker, "puller", "pw-" + UUID.randomUUID().toString().substring(0, 12));
    withSecret = registry.image("jkubelet-test/app-" + id, "secret");
    refused = registry.image("jkubelet-test/app-" + id, "refused");
    withNodeConfig = registry.image("jkubelet-test/app-" + id, "node");
    for (String image : List.of(withSecret, refused, withNodeConfig)) {
      registry.push(BUSYBOX, image);
      assertThat(registry.present(image)).as(image + " only in the registry").isFalse();
    }
  }

  @AfterAll
  void close() throws Exception {
    try {
      if (registry != null) {
        registry.close();
      }
    } finally {
      TestDocker.removeAll(docker, TestRegistry.LABEL, TestRegistry.LABEL_VALUE);
      docker.close();
    }
  }

  private String pod(String name, String image, String pullSecrets) {
    return """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s}
        spec:
          nodeName: %s
          terminationGracePeriodSeconds: 2
          imagePullSecrets: [%s]
          containers:
          - name: app
            image: %s
            imagePullPolicy: IfNotPresent
            command: [sh, -c, "trap 'exit 0' TERM; sleep 3600 & wait"]
        """
        .formatted(name, node, pullSecrets, image);
  }

  private JsonNode podJson(String name) throws Exception {
    return JSON.readTree(Kubectl.run("-n", ns, "get", "pod", name, "-o", "json").ok().out());
  }

  /** The container's waiting state (reason and message), read at once. */
  private JsonNode waiting(String name) throws Exception {
    return podJson(name)
        .path("status")
        .path("containerStatuses")
        .path(0)
        .path("state")
        .path("waiting");
  }

  private String waitingReason(String name) throws Exception {
    return waiting(name).path("reason").asText();
  }

  /** "reason: message" of the object's events, as kubectl lists them. */
  private List<String> events(String name) throws Exception {
    return Kubectl.events(ns, name).stream()
        .map(e -> e.path("reason").asText() + ": " + e.path("message").asText())
        .toList();
  }

  @Test
  void aPodWithTheRightPullSecretPullsFromThePrivateRegistryAndRuns() throws Exception {
    Kubectl.run(
            "-n",
            ns,
            "create",
            "secret",
            "docker-registry",
            "regcred",
            "--docker-server=" + registry.host(),
            "--docker-username=" + registry.user,
            "--docker-password=" + registry.password)
        .ok();
    Kubectl.apply(ns, pod("with-secret", withSecret, "{name: regcred}"));
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(
            () -> podJson("with-secret").path("status").path("phase").asText().equals("Running"));
    assertThat(events("with-secret"))
        .contains("Pulling: Pulling image \"" + withSecret + "\"")
        .anyMatch(e -> e.startsWith("Pulled: Successfully pulled image \"" + withSecret + "\" in "))
        .noneMatch(e -> e.contains(registry.password));
    assertThat(registry.present(withSecret)).isTrue();
    // The pull is in the log (as its event), the password is not.
    assertThat(cluster.jkubelet().log())
        .contains("Pulling image \"" + withSecret + "\"")
        .doesNotContain(registry.password);
  }

  @Test
  void withoutTheRightCredentialThePullFailsAndBacksOffAsUpstream() throws Exception {
    String wrong = registry.configJson(registry.user, "not-the-password");
    Path file = Files.writeString(cluster.tmp().resolve("wrong.json"), wrong);
    Kubectl.run(
            "-n",
            ns,
            "create",
            "secret",
            "generic",
            "wrongcred",
            "--type=kubernetes.io/dockerconfigjson",
            "--from-file=.dockerconfigjson=" + file)
        .ok();
    Kubectl.apply(ns, pod("wrong-secret", refused, "{name: wrongcred}"));
    Kubectl.apply(ns, pod("missing-secret", refused, "{name: no-such-secret}"));
    // Both at once: a pod seen only later may already be backing off until its next try.
    java.util.Map<String, JsonNode> errImagePull = new java.util.concurrent.ConcurrentHashMap<>();
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> {
              for (String name : List.of("wrong-secret", "missing-secret")) {
                JsonNode w = waiting(name);
                if (w.path("reason").asText().equals("ErrImagePull")) {
                  errImagePull.putIfAbsent(name, w);
                }
              }
              return errImagePull.size() == 2;
            });
    for (String name : List.of("wrong-secret", "missing-secret")) {
      System.out.println(name + ": " + errImagePull.get(name));
      assertThat(errImagePull.get(name).path("message").asText())
          .startsWith("rpc error: code = Unknown desc = Error response from daemon: ");
      await()
          .atMost(Duration.ofSeconds(90))
          .ignoreExceptions()
          .until(() -> waitingReason(name).equals("ImagePullBackOff"));
      List<String> events = events(name);
      assertThat(events)
          .anyMatch(
              e ->
                  e.startsWith(
                      "Failed: Failed to pull image \""
                          + refused
                          + "\": rpc error: code = Unknown desc = Error response from daemon: "))
          .contains("Failed: Error: ErrImagePull")
          .contains("BackOff: Back-off pulling image \"" + refused + "\"")
          .contains("Failed: Error: ImagePullBackOff")
          .noneMatch(e -> e.contains("not-the-password"));
    }
    assertThat(events("missing-secret"))
        .contains(
            "FailedToRetrieveImagePullSecret: Unable to retrieve some image pull secrets"
                + " (no-such-secret); attempting to pull the image may not succeed.");
    assertThat(registry.present(refused)).isFalse();
    assertThat(cluster.jkubelet().log())
        .contains("Pulling image \"" + refused + "\"")
        .doesNotContain("not-the-password");
  }

  @Test
  void theNodesDockerConfigFileServesAStaticPod() throws Exception {
    String standalone = "pull-node-" + id;
    Path tmp = Files.createTempDirectory("jkubelet-pull-node");
    Path root = Files.createDirectories(tmp.resolve("root"));
    Files.writeString(
        root.resolve("config.json"), registry.configJson(registry.user, registry.password));
    Path manifests = Files.createDirectories(tmp.resolve("manifests"));
    Files.writeString(
        manifests.resolve("static.yaml"),
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: static}
        spec:
          terminationGracePeriodSeconds: 2
          containers:
          - name: app
            image: %s
            command: [sh, -c, "trap 'exit 0' TERM; sleep 3600 & wait"]
        """
            .formatted(withNodeConfig));
    JkubeletProcess jkubelet =
        new JkubeletProcess(standalone, manifests, root, tmp.resolve("jkubelet.log")).start();
    try {
      await()
          .atMost(Duration.ofSeconds(90))
          .ignoreExceptions()
          .until(
              () -> {
                ContainerStatus s =
                    jkubelet
                        .pod("static-" + standalone)
                        .orElseThrow()
                        .getStatus()
                        .getContainerStatuses()
                        .get(0);
                return s.getState().getRunning() != null;
              });
      assertThat(registry.present(withNodeConfig)).isTrue();
      assertThat(jkubelet.log())
          .contains("Pulling image \"" + withNodeConfig + "\"")
          .doesNotContain(registry.password);
    } catch (AssertionError | RuntimeException e) {
      System.err.println("standalone jkubelet's log:\n" + jkubelet.log());
      throw e;
    } finally {
      jkubelet.stop();
      TestDocker.removeAll(docker, Labels.NODE, standalone);
      TestMounts.unmountUnder(tmp);
    }
  }
}
