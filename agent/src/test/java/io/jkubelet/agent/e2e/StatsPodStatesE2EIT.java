package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.runtime.Labels;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code /stats/summary} and {@code /metrics/resource} on a node whose pods are in every state a
 * real node has at once: running, crash-looping, completed, initialising and waiting for an image
 * that does not exist. A pod with no running container once made every summary request fail with
 * 500, so metrics-server and {@code kubectl top} got nothing for the whole node. Standalone, with
 * static pods; {@link PodStatesEvictionE2EIT} adds pending, terminating, a sandbox gone and the
 * eviction manager's readings in cluster mode.
 */
@Timeout(180)
class StatsPodStatesE2EIT {
  private final String node = "e2e-stats-" + UUID.randomUUID().toString().substring(0, 8);
  private final DockerClient docker = TestDocker.client();
  private final ObjectMapper json = new ObjectMapper();
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @AfterEach
  void stop() throws Exception {
    if (jkubelet != null) {
      jkubelet.stop();
    }
    TestDocker.removeAll(docker, Labels.NODE, node);
  }

  private static String pod(
      String name, String restartPolicy, String init, String image, String cmd) {
    return """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s, namespace: default}
        spec:
          restartPolicy: %s
          terminationGracePeriodSeconds: 1
        %s  containers:
          - name: app
            image: %s
            command: [sh, -c, '%s']
        """
        .formatted(name, restartPolicy, init, image, cmd);
  }

  @Test
  void everyPodStateLeavesTheSummaryAndTheResourceMetricsWhole() throws Exception {
    Path tmp = Files.createTempDirectory("jkubelet-stats");
    Path manifests = Files.createDirectories(tmp.resolve("manifests"));
    String busybox = "jkubelet/busybox:1.35";
    Files.writeString(
        manifests.resolve("running.yaml"),
        pod("running", "Always", "", busybox, "while true; do sleep 0.2; done"));
    Files.writeString(
        manifests.resolve("crashing.yaml"), pod("crashing", "Always", "", busybox, "exit 1"));
    Files.writeString(
        manifests.resolve("completed.yaml"), pod("completed", "Never", "", busybox, "true"));
    Files.writeString(
        manifests.resolve("initialising.yaml"),
        pod(
            "initialising",
            "Always",
            """
              initContainers:
              - name: wait
                image: jkubelet/busybox:1.35
                command: [sleep, '3600']
            """,
            busybox,
            "true"));
    Files.writeString(
        manifests.resolve("noimage.yaml"),
        pod("noimage", "Always", "", "jkubelet/no-such-image:0", "true"));
    jkubelet =
        new JkubeletProcess(node, manifests, tmp.resolve("root"), tmp.resolve("jkubelet.log"))
            .start();

    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                restarts("crashing-" + node) >= 1
                    && terminated("completed-" + node, "app")
                    && running("initialising-" + node, "wait"));

    // Read twice more than the 1 s cache apart, so that rates have a previous sample.
    List<JsonNode> reads = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(1500))
        .untilAsserted(
            () -> {
              HttpResponse<String> r = jkubelet.get("/stats/summary");
              assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
              reads.add(json.readTree(r.body()));
              assertThat(reads).hasSizeGreaterThanOrEqualTo(2);
            });
    JsonNode s = reads.get(reads.size() - 1);
    assertThat(s.at("/node/memory/workingSetBytes").asLong()).isPositive();
    JsonNode running = podOf(s, "running-" + node);
    assertThat(running.at("/containers/0/cpu/usageCoreNanoSeconds").asLong()).isPositive();
    assertThat(running.at("/memory/workingSetBytes").asLong()).isPositive();
    // Pods whose sandbox runs are reported, even with no container running.
    assertThat(podOf(s, "crashing-" + node).at("/podRef/namespace").asText()).isEqualTo("default");
    assertThat(podOf(s, "noimage-" + node).at("/startTime").asText()).isNotEmpty();

    HttpResponse<String> resource = jkubelet.get("/metrics/resource");
    assertThat(resource.statusCode()).isEqualTo(200);
    assertThat(resource.body())
        .contains("scrape_error 0.0")
        .contains(
            "container_cpu_usage_seconds_total{container=\"app\",namespace=\"default\",pod=\"running-"
                + node
                + "\"}");
  }

  private JsonNode podOf(JsonNode summary, String name) {
    for (JsonNode p : summary.get("pods")) {
      if (p.at("/podRef/name").asText().equals(name)) {
        return p;
      }
    }
    throw new AssertionError("no pod " + name + " in " + summary);
  }

  private List<ContainerStatus> statuses(String pod) {
    return jkubelet
        .pod(pod)
        .map(Pod::getStatus)
        .map(
            s -> {
              List<ContainerStatus> all = new ArrayList<>();
              if (s.getInitContainerStatuses() != null) {
                all.addAll(s.getInitContainerStatuses());
              }
              if (s.getContainerStatuses() != null) {
                all.addAll(s.getContainerStatuses());
              }
              return all;
            })
        .orElse(List.of());
  }

  private int restarts(String pod) {
    return statuses(pod).stream().mapToInt(ContainerStatus::getRestartCount).max().orElse(0);
  }

  private boolean terminated(String pod, String container) {
    return statuses(pod).stream()
        .anyMatch(c -> c.getName().equals(container) && c.getState().getTerminated() != null);
  }

  private boolean running(String pod, String container) {
    return statuses(pod).stream()
        .anyMatch(c -> c.getName().equals(container) && c.getState().getRunning() != null);
  }
}
