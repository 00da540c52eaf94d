package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jkubelet.agent.runtime.Labels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The fixture of the tests that put a node under real pressure, registered as an instance
 * extension: before each test, a fresh namespace and a directory; {@link #start} runs a packaged
 * jkubelet as a node of its own with the flags the test gives (thresholds, reservations), with
 * {@code --kubeconfig} of that node's identity, and waits for it to be Ready; after each test,
 * everything removed: the process, the namespace, the Node, the node's mirror pods and containers,
 * the mounts, the tmpfs root dir and the {@linkplain #cgroupRoot() cgroup root}. A failing test
 * prints the end of jkubelet's log.
 */
final class PressureNode implements BeforeEachCallback, AfterEachCallback, TestWatcher {
  static final long MI = 1L << 20;
  static final ObjectMapper JSON = new ObjectMapper();

  final String node;
  final String ns;
  private final String prefix;
  private final TestCgroupRoot cgroupRoot = new TestCgroupRoot();
  private Path tmp;
  private Path manifests;
  private boolean tmpfs;
  private JkubeletProcess jkubelet;

  /**
   * @param prefix names the node, the namespace and the directory
   */
  PressureNode(String prefix) {
    this.prefix = prefix;
    this.node = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    this.ns = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    tmp = Files.createTempDirectory("jkubelet-" + prefix);
    manifests = Files.createDirectories(tmp.resolve("manifests"));
    Kubectl.createNamespace(ns);
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    if (jkubelet != null) {
      jkubelet.close();
    }
    Kubectl.run("delete", "namespace", ns, "--wait=false");
    Kubectl.run("delete", "node", node, "--wait=false");
    Kubectl.run(
        "-n",
        "default",
        "delete",
        "pods",
        "--field-selector",
        "spec.nodeName=" + node,
        "--wait=false");
    TestDocker.removeAll(TestDocker.client(), Labels.NODE, node);
    TestMounts.unmountUnder(tmp);
    if (tmpfs) {
      new ProcessBuilder("umount", tmp.resolve("root").toString()).start().waitFor();
    }
    cgroupRoot.close();
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    new PrintLogOnFailure(() -> jkubelet).testFailed(context, cause);
  }

  /** The static pods' directory, watched by jkubelet. */
  Path manifests() {
    return manifests;
  }

  /** jkubelet's process; null before {@link #start}. */
  JkubeletProcess jkubelet() {
    return jkubelet;
  }

  /** A cgroup root of the test's own, made now ({@link TestCgroupRoot#make}: skips on v2). */
  TestCgroupRoot cgroupRoot() throws IOException {
    return cgroupRoot.make();
  }

  /**
   * A tmpfs of {@code mib} as the root dir: filling it is cheap and safe. Before {@link #start}.
   */
  void tmpfsRootDir(int mib) throws Exception {
    Path rootDir = Files.createDirectories(tmp.resolve("root"));
    Process m =
        new ProcessBuilder(
                "mount", "-t", "tmpfs", "-o", "size=" + mib + "m", "tmpfs", rootDir.toString())
            .inheritIO()
            .start();
    assertThat(m.waitFor()).isZero();
    tmpfs = true;
  }

  /** Starts jkubelet as this node with {@code flags} more, and waits until the node is Ready. */
  JkubeletProcess start(List<String> flags) throws Exception {
    List<String> all = new ArrayList<>();
    all.addAll(
        List.of("--kubeconfig", Kubectl.nodeKubeconfig(node).toString(), "--node-ip", "127.0.0.1"));
    all.addAll(flags);
    jkubelet =
        new JkubeletProcess(node, manifests, tmp.resolve("root"), tmp.resolve("jkubelet.log"), all)
            .start();
    Kubectl.awaitNodeReady(node);
    return jkubelet;
  }

  /**
   * Starts the node on a cgroup root of the test's own ({@link #cgroupRoot}) whose {@code
   * /kubepods} gets {@code mib} of memory (kube-reserved is all the rest of the machine's), with
   * {@code flags} more, and waits until it is Ready; returns the root.
   */
  TestCgroupRoot startWithKubepodsOf(long mib, String... flags) throws Exception {
    TestCgroupRoot root = cgroupRoot();
    List<String> all = new ArrayList<>();
    all.addAll(
        List.of(
            "--cgroup-root",
            root.path(),
            "--kube-reserved=memory=" + (memTotalBytes() - mib * MI)));
    all.addAll(List.of(flags));
    start(all);
    return root;
  }

  JsonNode nodeJson() throws Exception {
    return JSON.readTree(Kubectl.run("get", "node", node, "-o", "json").ok().out());
  }

  /** The Node's condition {@code type}; an empty object when it has none. */
  JsonNode conditionJson(String type) throws Exception {
    for (JsonNode c : nodeJson().at("/status/conditions")) {
      if (c.get("type").asText().equals(type)) {
        return c;
      }
    }
    return JSON.createObjectNode();
  }

  /** The Node's condition {@code type} as "status reason", or "none". */
  String condition(String type) throws Exception {
    JsonNode c = conditionJson(type);
    return c.has("status") ? c.get("status").asText() + " " + c.get("reason").asText() : "none";
  }

  /** Waits until the Node's condition {@code type} reads {@code expected} ("status reason"). */
  void awaitCondition(String type, String expected, int seconds) {
    await()
        .atMost(Duration.ofSeconds(seconds))
        .untilAsserted(() -> assertThat(condition(type)).isEqualTo(expected));
  }

  JsonNode pod(String name) throws Exception {
    return JSON.readTree(Kubectl.run("-n", ns, "get", "pod", name, "-o", "json").ok().out());
  }

  /** The pod once it is in {@code phase}, within {@code seconds}. */
  JsonNode awaitPhase(String name, String phase, int seconds) {
    return await()
        .atMost(Duration.ofSeconds(seconds))
        .ignoreExceptions()
        .until(() -> pod(name), p -> p.at("/status/phase").asText().equals(phase));
  }

  /** The pod once it has failed, within {@code seconds}. */
  JsonNode failed(String name, int seconds) {
    return awaitPhase(name, "Failed", seconds);
  }

  static long memTotalBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
      if (line.startsWith("MemTotal:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new IllegalStateException("no MemTotal");
  }

  /** One busybox container of a pod's list, each line indented by two spaces. */
  static String container(String name, String command, String resources) {
    return "  - name: "
        + name
        + "\n    image: jkubelet/busybox:1.35\n    command: [sh, -c, '"
        + command
        + "']\n    resources: "
        + resources;
  }
}
