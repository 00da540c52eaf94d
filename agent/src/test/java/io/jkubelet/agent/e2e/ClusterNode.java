package io.jkubelet.agent.e2e;

import static org.awaitility.Awaitility.await;

import io.jkubelet.agent.runtime.Labels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * A cluster-mode fixture, registered as a static extension: before the class, a fresh namespace
 * with the {@code default} service account that the controller manager makes, and a packaged
 * jkubelet registered as its own node, started with {@code --kubeconfig} of that node's identity
 * (see {@link Kubectl#nodeKubeconfig}) and Ready; after it, all of that removed: the process, the
 * namespace, the node and the node's containers. A failing test prints the end of jkubelet's log.
 */
final class ClusterNode implements BeforeAllCallback, AfterAllCallback, TestWatcher {
  final String node;
  final String ns;
  private final String prefix;
  private final List<String> flags;
  private final boolean awaitReady;
  private Path tmp;
  private JkubeletProcess jkubelet;

  /**
   * @param prefix names the node, the namespace and the temporary directory
   */
  ClusterNode(String prefix) {
    this(prefix, List.of());
  }

  /**
   * @param flags more flags of jkubelet's, e.g. {@code --allowed-unsafe-sysctls}
   */
  ClusterNode(String prefix, List<String> flags) {
    this(prefix, flags, true);
  }

  /**
   * @param awaitReady whether the class starts only once the node is Ready (a node whose network is
   *     not configured yet registers NotReady)
   */
  ClusterNode(String prefix, List<String> flags, boolean awaitReady) {
    this.awaitReady = awaitReady;
    this.flags = List.copyOf(flags);
    this.prefix = prefix;
    this.node = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    this.ns = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** jkubelet's process, to stop and start it again; null before the class starts. */
  JkubeletProcess jkubelet() {
    return jkubelet;
  }

  /** A directory of this run's, for the tests' own files. */
  Path tmp() {
    return tmp;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    tmp = Files.createTempDirectory("jkubelet-" + prefix);
    Kubectl.createNamespace(ns);
    jkubelet = process("jkubelet.log").start();
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> {
              String line = Kubectl.run("get", "node", node, "--no-headers").ok().out();
              return awaitReady ? line.contains(" Ready ") : line.contains(node);
            });
  }

  private JkubeletProcess process(String log) throws Exception {
    return new JkubeletProcess(
        node,
        Files.createDirectories(tmp.resolve("manifests")),
        tmp.resolve("root"),
        tmp.resolve(log),
        Stream.concat(
                Stream.of(
                    "--kubeconfig",
                    Kubectl.nodeKubeconfig(node).toString(),
                    "--node-ip",
                    "127.0.0.1"),
                flags.stream())
            .toList());
  }

  /**
   * Stops jkubelet (SIGTERM: its pods keep running) and starts it again as the same node on the
   * same root directory, logging to {@code log}; returns once the new process answers {@code
   * /healthz}.
   */
  JkubeletProcess restart(String log) throws Exception {
    jkubelet.stop();
    jkubelet = process(log).start().awaitHealthy();
    return jkubelet;
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (jkubelet != null) {
      jkubelet.stop();
    }
    Kubectl.run("delete", "namespace", ns, "--wait=false");
    Kubectl.run("delete", "node", node, "--wait=false");
    TestDocker.removeAll(TestDocker.client(), Labels.NODE, node);
    TestMounts.unmountUnder(tmp);
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    new PrintLogOnFailure(() -> jkubelet).testFailed(context, cause);
  }
}
