package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jkubelet hollow} against the real control plane: three hollow nodes in one process, each
 * with its own node identity, register and go Ready; a pod bound to one reaches Running as the API
 * server sees it, and deleting it removes it. As kubemark's, the nodes send no events.
 */
@Timeout(600)
class HollowE2EIT {
  private static final String PREFIX =
      "hollow-" + UUID.randomUUID().toString().substring(0, 6) + "-";
  private static final String NS = PREFIX + "ns";
  private static final List<String> NODES = List.of(PREFIX + "0", PREFIX + "1", PREFIX + "2");

  @TempDir static Path tmp;
  private static Process hollow;
  private static Path log;

  @BeforeAll
  static void startHollowNodes() throws Exception {
    Path kubeconfigs = null;
    for (String node : NODES) {
      kubeconfigs = Kubectl.nodeKubeconfig(node).getParent();
    }
    Path launcher =
        Path.of(System.getProperty("jkubelet.dist", "target/jkubelet"), "bin", "jkubelet")
            .toAbsolutePath();
    log = tmp.resolve("hollow.log");
    hollow =
        new ProcessBuilder(
                launcher.toString(),
                "hollow",
                "--nodes",
                "3",
                "--node-name-prefix",
                PREFIX,
                "--kubeconfig",
                kubeconfigs.resolve("{node}.kubeconfig").toString(),
                "--root-dir",
                tmp.resolve("root").toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    Kubectl.createNamespace(NS);
  }

  @AfterAll
  static void stop() throws Exception {
    if (hollow != null) {
      hollow.destroy();
      if (!hollow.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
        hollow.destroyForcibly();
      }
    }
    Kubectl.run("delete", "namespace", NS, "--wait=false");
    List<String> delete = new ArrayList<>(List.of("delete", "node", "--wait=false"));
    delete.addAll(NODES);
    Kubectl.run(delete.toArray(String[]::new));
  }

  @Test
  void threeNodesGoReadyAndRunAPodBoundToOne() throws Exception {
    try {
      for (String node : NODES) {
        await()
            .atMost(Duration.ofSeconds(240))
            .ignoreExceptions()
            .until(() -> hollow.isAlive() && Kubectl.nodeReady(node));
      }
      // NOTE: no service-account token: a hollow node still mounts secret volumes as tmpfs on
      // the host (the volume manager's mounter is not replaced yet).
      Kubectl.apply(
          NS,
          """
          apiVersion: v1
          kind: Pod
          metadata: {name: web}
          spec:
            nodeName: %s
            automountServiceAccountToken: false
            terminationGracePeriodSeconds: 2
            containers:
            - {name: c, image: busybox:1.36, command: [sleep, '3600']}
          """
              .formatted(NODES.get(1)));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  Kubectl.run("-n", NS, "get", "pod", "web", "-o", "jsonpath={.status.phase}")
                      .out()
                      .equals("Running"));
      assertThat(
              Kubectl.run("-n", NS, "get", "pod", "web", "-o", "jsonpath={.spec.nodeName}")
                  .ok()
                  .out())
          .isEqualTo(NODES.get(1));

      Kubectl.run("-n", NS, "delete", "pod", "web", "--wait=false").ok();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Kubectl.run("-n", NS, "get", "pod", "web").code() != 0);
      // As kubemark's hollow kubelet, the nodes log their events but send none (no --api-events).
      assertThat(Files.readString(log)).contains("reason: 'Started' Started container c");
      assertThat(
              Kubectl.run("-n", NS, "get", "events", "-o", "jsonpath={.items[*].source.component}")
                  .ok()
                  .out())
          .doesNotContain("kubelet");
    } catch (AssertionError | RuntimeException e) {
      System.err.println("hollow log:\n" + Files.readString(log));
      throw e;
    }
  }
}
