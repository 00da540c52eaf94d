package io.jkubelet.agent.e2e;

import static org.awaitility.Awaitility.await;

import io.jkubelet.agent.runtime.Labels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * A cluster-mode fixture: a fresh namespace with the {@code default} service account (no
 * controller-manager runs in the test cluster to make it), and a packaged jkubelet registered as
 * its own node, started with {@code --kubeconfig} and Ready. {@link #close()} removes all of it:
 * the process, the namespace, the node and the node's containers.
 */
final class ClusterNode implements AutoCloseable {
  final String node;
  final String ns;
  final Path tmp;
  final JkubeletProcess jkubelet;

  private ClusterNode(String node, String ns, Path tmp, JkubeletProcess jkubelet) {
    this.node = node;
    this.ns = ns;
    this.tmp = tmp;
    this.jkubelet = jkubelet;
  }

  /**
   * @param prefix names the node, the namespace and the temporary directory
   */
  static ClusterNode start(String prefix) throws Exception {
    String node = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    String ns = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    Path tmp = Files.createTempDirectory("jkubelet-" + prefix);
    Kubectl.run("create", "namespace", ns).ok();
    Kubectl.run("-n", ns, "create", "serviceaccount", "default").ok();
    JkubeletProcess jkubelet =
        new JkubeletProcess(
                node,
                Files.createDirectories(tmp.resolve("manifests")),
                tmp.resolve("root"),
                tmp.resolve("jkubelet.log"),
                List.of("--kubeconfig", Kubectl.kubeconfig().toString(), "--node-ip", "127.0.0.1"))
            .start();
    ClusterNode n = new ClusterNode(node, ns, tmp, jkubelet);
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> Kubectl.run("get", "node", node, "--no-headers").ok().out().contains(" Ready "));
    return n;
  }

  @Override
  public void close() throws Exception {
    jkubelet.stop();
    Kubectl.run("delete", "namespace", ns, "--wait=false");
    Kubectl.run("delete", "node", node, "--wait=false");
    TestDocker.removeAll(TestDocker.client(), Labels.NODE, node);
  }
}
