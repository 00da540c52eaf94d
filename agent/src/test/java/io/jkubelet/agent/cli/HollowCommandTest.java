package io.jkubelet.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jkubelet.agent.Agent;
import io.jkubelet.agent.hollow.HollowNodes;
import io.jkubelet.agent.testing.PlatformThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code jkubelet hollow} builds one real agent per node with the one composition root; started,
 * they share the process's HTTP engine (on its Netty loops) and timers and listen on no port. The
 * API server here is one that does not answer: what is checked is what the process holds, not what
 * the nodes do (the E2E test, {@code HollowE2EIT}, runs them against a real one).
 */
@Timeout(120)
class HollowCommandTest {
  @TempDir Path tmp;

  @Test
  void buildsOneAgentPerNodeThatShareTheEngineAndTimersAndServeNoPort() throws Exception {
    HollowCommand hollow = command(3);
    for (String node : List.of("hollow-node-0", "hollow-node-1", "hollow-node-2")) {
      Files.writeString(tmp.resolve(node + ".kubeconfig"), kubeconfig(node));
    }
    Set<Long> listeningBefore = listeningSockets();

    List<Agent> agents = hollow.agents();
    HollowCommand.startAll(agents);
    try {
      assertThat(agents).hasSize(3).doesNotHaveDuplicates();
      // The nodes' clients have asked the API server something by now, on the one engine, whose
      // event loops are the process's Netty loops (util.NettyLoops), not loops of its own.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> PlatformThreads.startingWith("netty-io-").size() > 0);
      assertThat(PlatformThreads.startingWith("netty-io-"))
          .hasSizeLessThanOrEqualTo(Runtime.getRuntime().availableProcessors());
      assertThat(PlatformThreads.startingWith("vert.x-eventloop-")).isEmpty();
      assertThat(PlatformThreads.startingWith("vertx-blocked-thread-checker")).isEmpty();
      // No platform thread per node: the nodes' timers and their schedulers' tasks are virtual
      // threads (util.SharedSchedulers).
      assertThat(PlatformThreads.startingWith("hollow-timer-")).isEmpty();
      assertThat(PlatformThreads.startingWith("pleg")).isEmpty();
      assertThat(PlatformThreads.startingWith("node-status")).isEmpty();
      assertThat(PlatformThreads.startingWith("sync-loop")).isEmpty();
      assertThat(PlatformThreads.startingWith("status-manager")).isEmpty();
      assertThat(listeningSockets()).isSubsetOf(listeningBefore);
    } finally {
      HollowCommand.stopAll(agents);
    }
  }

  @Test
  void namesTheNodesWithThePrefixAndGivesEachItsOwnKubeconfig() {
    HollowCommand hollow = command(2);
    hollow.namePrefix = "kubemark-";
    HollowNodes nodes = hollow.hollowNodes();

    assertThat(nodes.names()).containsExactly("kubemark-0", "kubemark-1");
    HollowNodes.Node second = nodes.node(1);
    assertThat(second.options().nodeName()).isEqualTo("kubemark-1");
    assertThat(second.options().subsystems().certificates().kubeconfig())
        .isEqualTo(tmp.resolve("kubemark-1.kubeconfig").toAbsolutePath());
    assertThat(second.deps().servesPorts()).isFalse();
    assertThat(second.options().config().server().readOnlyPort()).isZero();
    assertThat(second.options().config().server().healthz().healthzPort()).isZero();
  }

  @Test
  void withoutAConfigFileEachNodeHasKubemarksClientRateAndSyncPeriod() {
    HollowNodes.Node node = command(1).hollowNodes().node(0);

    assertThat(node.options().config().client().kubeAPIQPS()).isEqualTo(10);
    assertThat(node.options().config().client().kubeAPIBurst()).isEqualTo(20);
    assertThat(node.options().config().pods().lifecycle().syncFrequency())
        .isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void eventsGoToTheApiServerOnlyWithApiEvents() {
    assertThat(command(1).hollowNodes().node(0).deps().apiEvents()).isFalse();
    HollowCommand c = new HollowCommand();
    new CommandLine(c)
        .parseArgs(
            "--kubeconfig",
            tmp.resolve("{node}.kubeconfig").toString(),
            "--root-dir",
            tmp.resolve("root").toString(),
            "--api-events");

    assertThat(c.hollowNodes().node(0).deps().apiEvents()).isTrue();
  }

  private HollowCommand command(int nodes) {
    HollowCommand c = new HollowCommand();
    c.nodes = nodes;
    c.namePrefix = "hollow-node-";
    c.kubeconfig = tmp.resolve("{node}.kubeconfig").toString();
    c.rootDir = tmp.resolve("root");
    c.nodeIp = "127.0.0.1";
    c.podInfraContainerImage = "jkubelet/pause:3.2";
    return c;
  }

  /** A kubeconfig of an API server that does not answer (port 1), with a token. */
  private static String kubeconfig(String node) {
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
        users:
        - name: %s
          user: {token: "t"}
        contexts:
        - name: c
          context: {cluster: c, user: %s}
        current-context: c
        """
        .formatted(node, node);
  }

  /** The inodes of the TCP sockets this process listens on. */
  private static Set<Long> listeningSockets() throws IOException {
    Set<Long> mine = new HashSet<>();
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : fds.toList()) {
        try {
          String link = Files.readSymbolicLink(fd).toString();
          if (link.startsWith("socket:[")) {
            mine.add(Long.parseLong(link.substring(8, link.length() - 1)));
          }
        } catch (IOException e) {
          // closed meanwhile
        }
      }
    }
    Set<Long> listening = new HashSet<>();
    for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
      Path p = Path.of(table);
      if (!Files.exists(p)) {
        continue;
      }
      for (String line : Files.readAllLines(p).subList(1, Files.readAllLines(p).size())) {
        String[] f = line.trim().split("\\s+");
        long inode = Long.parseLong(f[9]);
        if (f[3].equals("0A") && mine.contains(inode)) {
          listening.add(inode);
        }
      }
    }
    return listening;
  }
}
