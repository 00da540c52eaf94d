package io.jkubelet.agent.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.jkubelet.agent.util.Time;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code export-events} against the test control plane ({@code JKUBELET_TEST_KUBECONFIG}) and a
 * real OpenSearch: a cluster's events with their updates, a restart without duplicates, and two
 * replicas of the packaged {@code jkubelet export-events --leader-elect} of which one exports.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ExportEventsE2EIT {
  private static final String NS = "export-e2e";

  @TempDir Path tmp;
  SearchServer server;
  KubernetesClient client;
  Path kubeconfig;

  @BeforeAll
  void start() throws Exception {
    String kc = System.getenv("JKUBELET_TEST_KUBECONFIG");
    if (kc == null || kc.isBlank()) {
      throw new IllegalStateException("JKUBELET_TEST_KUBECONFIG is not set (see k8s-up.sh)");
    }
    kubeconfig = Path.of(kc);
    client =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(null, Files.readString(kubeconfig), kc))
            .build();
    if (client.namespaces().withName(NS).get() == null) {
      client
          .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
          .create();
    }
    server = new SearchServer(Files.createTempDirectory("jkubelet-search-"));
    server.start();
  }

  @AfterAll
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    if (client != null) {
      client.close();
    }
  }

  private ClusterEventExporter exporter(Path spool, String index) {
    var bulk =
        BulkExporter.create(
            ExportTarget.parse(server.url, null, null, index),
            ExportOptions.defaults(spool, 64L << 20).withBatching(500, Duration.ofMillis(200)),
            Time.system());
    return new ClusterEventExporter(client, null, List.of(bulk));
  }

  private Event crashLoop(String name) {
    return client
        .v1()
        .events()
        .inNamespace(NS)
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NS)
                .endMetadata()
                .withNewInvolvedObject()
                .withKind("Pod")
                .withNamespace(NS)
                .withName("web-0")
                .withUid("uid-web-0")
                .endInvolvedObject()
                .withType("Warning")
                .withReason("BackOff")
                .withMessage("Back-off restarting failed container")
                .withCount(1)
                .withFirstTimestamp("2026-11-23T01:00:00Z")
                .withLastTimestamp("2026-11-23T01:00:00Z")
                .withNewSource()
                .withComponent("kubelet")
                .withHost("node-a")
                .endSource()
                .build())
        .create();
  }

  @Test
  void theClustersEventsAndTheirUpdatesAreExportedAndARestartDuplicatesNothing() throws Exception {
    Path spool = tmp.resolve("spool");
    Event e = crashLoop("web-0.backoff-" + System.nanoTime());
    String uid = e.getMetadata().getUid();
    var exporter = exporter(spool, "cluster");
    exporter.start();
    try {
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(60))
          .until(() -> server.counts("cluster").containsKey(uid));
      for (int count = 2; count <= 40; count++) {
        e.setCount(count);
        e.setLastTimestamp("2026-11-23T01:%02d:00Z".formatted(count));
        e = client.v1().events().inNamespace(NS).resource(e).update();
      }
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(60))
          .until(() -> server.counts("cluster").get(uid) == 40L);
    } finally {
      exporter.stop();
    }
    Map<String, Long> before = server.counts("cluster");
    assertThat(before).noneSatisfy((id, n) -> assertThat(id).endsWith("#duplicate"));
    // The control plane's own events are there too: the scheduler's about a pod no node can take.
    String pod = "unschedulable-" + System.nanoTime();
    client
        .pods()
        .inNamespace(NS)
        .resource(
            new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata()
                .withName(pod)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("jkubelet/busybox:1.35")
                .endContainer()
                .withNodeSelector(Map.of("no-such-node", "true"))
                .endSpec()
                .build())
        .create();
    var scheduler = exporter(spool, "cluster");
    scheduler.start();
    try {
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(90))
          .until(
              () ->
                  server
                          .call(
                              "POST",
                              "/cluster-*/_search",
                              "{\"query\":{\"bool\":{\"filter\":[{\"term\":{\"reason\":"
                                  + "\"FailedScheduling\"}},{\"term\":{\"involvedObject.name\":\""
                                  + pod
                                  + "\"}}]}}}")
                          .at("/hits/total/value")
                          .asLong()
                      > 0);
    } finally {
      scheduler.stop();
    }
    Map<String, Long> withScheduler = server.counts("cluster");

    var again = exporter(spool, "cluster");
    again.start();
    try {
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  again.healthy().ok() && server.counts("cluster").size() >= withScheduler.size());
    } finally {
      again.stop();
    }
    Map<String, Long> after = server.counts("cluster");
    assertThat(after.keySet()).noneMatch(k -> k.endsWith("#duplicate"));
    assertThat(after.get(uid)).isEqualTo(40L);
    assertThat(after.keySet()).containsAll(withScheduler.keySet());
  }

  @Test
  void ofTwoLeaderElectedReplicasOneExportsAndTheOtherTakesOverWhenItDies() throws Exception {
    crashLoop("web-0.leader-" + System.nanoTime());
    String lease = "export-e2e-" + System.nanoTime();
    List<Process> replicas = new ArrayList<>();
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Path file = tmp.resolve("replica-" + i + ".jsonl");
      files.add(file);
      replicas.add(replica(i, file, lease));
    }
    try {
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(90))
          .until(() -> files.stream().anyMatch(f -> Files.exists(f) && size(f) > 0));
      int leader = size(files.get(0)) > 0 ? 0 : 1;
      int follower = 1 - leader;
      // The follower holds no lease, so it exports nothing.
      await()
          .ignoreExceptions()
          .during(Duration.ofSeconds(10))
          .atMost(Duration.ofSeconds(15))
          .until(() -> size(files.get(follower)) == 0);
      replicas.get(leader).destroy(); // SIGTERM: the lease is released
      replicas.get(leader).waitFor();
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(60))
          .until(() -> size(files.get(follower)) > 0);
    } finally {
      for (Process p : replicas) {
        p.destroyForcibly();
      }
    }
  }

  private Process replica(int i, Path file, String lease) throws Exception {
    String dist = System.getProperty("jkubelet.dist", "target/jkubelet");
    Path launcher = Path.of(dist, "bin", "jkubelet").toAbsolutePath();
    return new ProcessBuilder(
            launcher.toString(),
            "export-events",
            "--kubeconfig",
            kubeconfig.toString(),
            "--root-dir",
            tmp.resolve("root-" + i).toString(),
            "--event-export-file",
            file.toString(),
            "--leader-elect",
            "--lease-namespace",
            NS,
            "--lease-name",
            lease)
        .redirectErrorStream(true)
        .redirectOutput(tmp.resolve("replica-" + i + ".log").toFile())
        .start();
  }

  private static long size(Path f) {
    try {
      return Files.exists(f) ? Files.size(f) : 0;
    } catch (java.io.IOException e) {
      return 0;
    }
  }
}
