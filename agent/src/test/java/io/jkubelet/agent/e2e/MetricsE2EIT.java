package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import io.jkubelet.agent.runtime.Labels;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Metrics and stats end to end: the packaged jkubelet runs a static pod with a probe against the
 * real engine and this host's cgroups; the tests read {@code /metrics}, {@code /metrics/probes},
 * {@code /metrics/resource} and {@code /stats/summary} as a user would, check the text with {@code
 * promtool}, and let a real Prometheus (Debian's) scrape all three metrics paths.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
class MetricsE2EIT {
  private final String node = "e2e-metrics-" + UUID.randomUUID().toString().substring(0, 8);
  private final String pod = "probed-" + node;
  private final DockerClient docker = TestDocker.client();
  private final ObjectMapper json = new ObjectMapper();
  private Path tmp;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeAll
  void start() throws Exception {
    tmp = Files.createTempDirectory("jkubelet-metrics");
    Path manifests = Files.createDirectories(tmp.resolve("manifests"));
    Files.writeString(
        manifests.resolve("probed.yaml"),
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: probed, namespace: default}
        spec:
          containers:
          - name: app
            image: jkubelet/busybox:1.35
            command: [sh, -c, 'while true; do echo x > /dev/null; sleep 0.2; done']
            readinessProbe:
              exec: {command: ['true']}
              periodSeconds: 1
        """);
    jkubelet =
        new JkubeletProcess(
                node,
                manifests,
                tmp.resolve("root"),
                tmp.resolve("jkubelet.log"),
                // Image GC on, with a high threshold no sound disk reaches: it detects, and its
                // counts are on /metrics, but it deletes nothing of the engine's shared images.
                List.of("--image-gc-high-threshold=99", "--image-gc-low-threshold=98"))
            .start();
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () ->
                jkubelet
                    .get("/metrics/probes")
                    .body()
                    .matches("(?s).*result=\"successful\"} [1-9].*"));
  }

  @AfterAll
  void stop() throws Exception {
    if (jkubelet != null) {
      jkubelet.stop();
    }
    TestDocker.removeAll(docker, Labels.NODE, node);
  }

  @Test
  void metricsCarryUpstreamsNamesAndPassPromtool() throws Exception {
    HttpResponse<String> r = jkubelet.get("/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain; version=0.0.4"));
    assertThat(r.body())
        .contains("kubelet_node_name{node=\"" + node + "\"} 1.0")
        .contains("kubelet_running_pods 1.0")
        .contains("kubelet_running_containers{container_state=\"running\"} 1.0")
        .contains("kubelet_runtime_operations_total{operation_type=\"list_containers\"}")
        .contains("kubelet_runtime_operations_total{operation_type=\"exec_sync\"}")
        .contains("kubelet_pod_worker_duration_seconds_count{operation_type=\"create\"} 1")
        .contains("kubelet_pod_start_duration_seconds_count 1")
        .contains("kubelet_pleg_relist_duration_seconds_count")
        .contains("jkubelet_events_recorded_total{reason=\"Started\",type=\"Normal\"}")
        .contains("jkubelet_prober_workers{probe_type=\"readiness\"} 1.0")
        .contains("jkubelet_cache_entries{cache=\"pleg_pod_cache\"} 1.0")
        .contains("jkubelet_cache_capacity{cache=\"pleg_pod_cache\"} 110.0")
        .contains("jkubelet_cache_capacity{cache=\"event_queue_store\"} 1000.0")
        .contains("jkubelet_cache_capacity{cache=\"event_store\"} 1000.0")
        .contains("jkubelet_cache_evictions_total{cache=\"loop_pleg_channel\"} 0.0")
        .contains("jkubelet_image_gc_deleted_images_total 0.0")
        .contains("jkubelet_image_gc_freed_bytes_total 0.0")
        .contains("jkubelet_image_gc_runs_over_threshold_total 0.0")
        .containsPattern("# TYPE jkubelet_container_gc_removed_containers(_total)? counter")
        .contains("jkubelet_container_gc_removed_containers_total ")
        .contains("jkubelet_container_gc_removed_sandboxes_total 0.0")
        .contains("jkubelet_container_gc_failed_removals_total 0.0");
    promtool(r.body());
  }

  @Test
  void probeResultsAreCountedPerContainer() throws Exception {
    String body = jkubelet.get("/metrics/probes").body();
    assertThat(body)
        .containsPattern(
            "prober_probe_total\\{container=\"app\",namespace=\"default\",pod=\""
                + pod
                + "\",pod_uid=\"[^\"]+\",probe_type=\"Readiness\",result=\"successful\"} [1-9]");
    promtool(body);
  }

  @Test
  void theSummaryReadsThisHostsCgroupsAndThePodsNetwork() throws Exception {
    // usageNanoCores needs two reads more than the 1 s cache apart.
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(1500))
        .untilAsserted(
            () -> {
              JsonNode s = json.readTree(jkubelet.get("/stats/summary").body());
              assertThat(s.at("/node/nodeName").asText()).isEqualTo(node);
              assertThat(s.at("/node/cpu/usageCoreNanoSeconds").asLong()).isPositive();
              assertThat(s.at("/node/memory/workingSetBytes").asLong()).isPositive();
              assertThat(s.at("/node/fs/capacityBytes").asLong()).isPositive();
              assertThat(s.at("/node/runtime/imageFs/capacityBytes").asLong()).isPositive();
              JsonNode p = podOf(s);
              assertThat(p.at("/podRef/namespace").asText()).isEqualTo("default");
              assertThat(p.at("/containers/0/name").asText()).isEqualTo("app");
              assertThat(p.at("/containers/0/cpu/usageCoreNanoSeconds").asLong()).isPositive();
              assertThat(p.at("/containers/0/cpu/usageNanoCores").isNumber()).isTrue();
              assertThat(p.at("/containers/0/memory/workingSetBytes").asLong()).isPositive();
              assertThat(p.at("/memory/workingSetBytes").asLong())
                  .isGreaterThanOrEqualTo(p.at("/containers/0/memory/workingSetBytes").asLong());
              assertThat(p.at("/network/name").asText()).isEqualTo("eth0");
              assertThat(p.at("/network/rxBytes").isNumber()).isTrue();
            });
    String resource = jkubelet.get("/metrics/resource").body();
    assertThat(resource)
        .contains("scrape_error 0.0")
        .contains("node_cpu_usage_seconds_total ")
        .contains(
            "container_cpu_usage_seconds_total{container=\"app\",namespace=\"default\",pod=\""
                + pod
                + "\"}")
        .contains("pod_memory_working_set_bytes{namespace=\"default\",pod=\"" + pod + "\"}");
    promtool(resource);
  }

  private JsonNode podOf(JsonNode summary) {
    for (JsonNode p : summary.get("pods")) {
      if (p.at("/podRef/name").asText().equals(pod)) {
        return p;
      }
    }
    throw new AssertionError("no pod " + pod + " in " + summary);
  }

  @Test
  void aRealPrometheusScrapesEveryMetricsPath() throws Exception {
    int port = freePort();
    Path dir = Files.createDirectories(tmp.resolve("prometheus"));
    StringBuilder config =
        new StringBuilder("global: {scrape_interval: 1s, scrape_timeout: 1s}\nscrape_configs:\n");
    for (String path : new String[] {"/metrics", "/metrics/probes", "/metrics/resource"}) {
      config
          .append("- job_name: '")
          .append(path)
          .append("'\n  metrics_path: '")
          .append(path)
          .append("'\n  static_configs: [{targets: ['127.0.0.1:")
          .append(jkubelet.port())
          .append("']}]\n");
    }
    Files.writeString(dir.resolve("prometheus.yml"), config);
    Process prometheus =
        new ProcessBuilder(
                "prometheus",
                "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("prometheus.log").toFile())
            .start();
    HttpClient http = HttpClient.newHttpClient();
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                JsonNode targets =
                    json.readTree(
                        http.send(
                                HttpRequest.newBuilder(
                                        URI.create("http://127.0.0.1:" + port + "/api/v1/targets"))
                                    .build(),
                                HttpResponse.BodyHandlers.ofString())
                            .body());
                JsonNode active = targets.at("/data/activeTargets");
                assertThat(active.size()).isEqualTo(3);
                for (JsonNode t : active) {
                  assertThat(t.get("health").asText()).as("%s", t).isEqualTo("up");
                }
              });
    } finally {
      prometheus.destroy();
      if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
        prometheus.destroyForcibly().waitFor();
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static void promtool(String text) throws Exception {
    Process p =
        new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write(text.getBytes(StandardCharsets.UTF_8));
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("promtool check metrics: %s", out).isZero();
    assertThat(out).as("promtool's findings").isBlank();
  }
}
