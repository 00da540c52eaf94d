package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Cluster mode's metrics: jkubelet as a node of the real API server, its {@code /metrics} read on
 * the read-only port. The API clients' requests, the status writes and the events sent to the API
 * server are counted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class MetricsClusterE2EIT {
  @RegisterExtension static final ClusterNode cluster = new ClusterNode("mx");

  /** One pod for both tests, with the service-account token's secret volume. */
  @BeforeAll
  static void aPod() throws Exception {
    Kubectl.apply(
        cluster.ns,
        Kubectl.boundPod(
            "web",
            cluster.node,
            "  - {name: c, image: 'jkubelet/busybox:1.35', command: [sleep, '3600']}"));
  }

  @Test
  void apiRequestsStatusWritesAndEventsAreCounted() throws Exception {
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              String metrics = cluster.jkubelet().get("/metrics").body();
              assertThat(metrics)
                  // the Node's registration, its Lease, the pod watch, the status patches
                  .containsPattern(
                      "rest_client_requests_total\\{code=\"201\",host=\"[^\"]+\",method=\"POST\"} [1-9]")
                  .containsPattern(
                      "rest_client_requests_total\\{code=\"200\",host=\"[^\"]+\",method=\"GET\"} [1-9]")
                  .containsPattern(
                      "rest_client_requests_total\\{code=\"200\",host=\"[^\"]+\",method=\"PATCH\"} [1-9]")
                  .containsPattern("jkubelet_status_writes_total\\{result=\"written\"} [1-9]")
                  .containsPattern(
                      "jkubelet_event_sink_requests_total\\{result=\"created\",sink=\"api\"} [1-9]")
                  .contains("kubelet_running_pods 1.0")
                  .contains("kubelet_pod_start_duration_seconds_count 1");
            });
  }

  @Test
  void theApiServerProxiesMetricsAndTheSummaryFromTheKubeletApi() throws Exception {
    String node = "/api/v1/nodes/" + cluster.node + "/proxy";
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              String metrics = Kubectl.run("get", "--raw", node + "/metrics").ok().out();
              assertThat(metrics)
                  .contains("kubelet_node_name{node=\"" + cluster.node + "\"} 1.0")
                  .contains("kubelet_runtime_operations_total{operation_type=\"list_containers\"}");
              assertThat(Kubectl.run("get", "--raw", node + "/metrics/resource").ok().out())
                  .contains("scrape_error 0.0")
                  .contains("node_cpu_usage_seconds_total ");
              // No pod here has a probe: an empty family, which the text format leaves out.
              assertThat(Kubectl.run("get", "--raw", node + "/metrics/probes").ok().out())
                  .doesNotContain("prober_probe_total{");
              String summary = Kubectl.run("get", "--raw", node + "/stats/summary").ok().out();
              assertThat(summary)
                  .contains("\"nodeName\":\"" + cluster.node + "\"")
                  .contains("\"usageCoreNanoSeconds\"")
                  // the service-account token's secret volume, measured, and the pod's total
                  .containsPattern("\"inodesUsed\":[1-9][0-9]*,\"name\":\"default-token-")
                  .contains("\"ephemeral-storage\":{");
            });
  }
}
