package io.jkubelet.agent.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jkubelet.agent.metrics.KubeletMetrics;
import io.jkubelet.agent.server.auth.Attributes;
import io.jkubelet.agent.server.auth.Authenticator;
import io.jkubelet.agent.server.auth.Subject;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics documents over the kubelet API: HTTPS, a bearer token, authorized as {@code
 * nodes/metrics}; and a real Prometheus (Debian's) scraping them with TLS verification off and the
 * token, as a cluster's Prometheus scrapes kubelets.
 */
@Timeout(90)
class MetricsOverKubeletApiTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-03-01T00:00:00Z"), ZoneOffset.UTC);

  @TempDir Path dir;
  private KubeletServer server;
  private final List<Attributes> asked = new CopyOnWriteArrayList<>();
  private final KubeletMetrics metrics = new KubeletMetrics("node-a");

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop();
    }
  }

  private ServingCerts start() throws Exception {
    ServingCerts certs = ServingCerts.selfSigned(dir.resolve("pki"), "node-a", List.of(), CLOCK);
    List<Route> routes = new ArrayList<>();
    for (KubeletMetrics.Endpoint e : KubeletMetrics.Endpoint.values()) {
      routes.add(
          new DocumentRoute(
              e.path(),
              new ReadOnlyServer.Resource(KubeletMetrics.CONTENT_TYPE, () -> metrics.scrape(e))));
    }
    server =
        new KubeletServer(
            new ServerOptions("127.0.0.1", 0, certs, List.of(), "node-a", null, TlsPolicy.DEFAULT),
            new Authenticator(
                false,
                Optional.of(
                    t ->
                        t.equals("scraper-token")
                            ? Optional.of(new Subject("prometheus", List.of()))
                            : Optional.empty())),
            (s, a) -> {
              asked.add(a);
              return true;
            },
            routes);
    server.start();
    return certs;
  }

  @Test
  void metricsAreServedToAnAuthenticatedSubjectAsNodesMetrics() throws Exception {
    ServingCerts certs = start();
    HttpClient http =
        HttpClient.newBuilder()
            .sslContext(TestPki.clientContext(null, certs.chain().get(0)))
            .build();
    try (http) {
      HttpResponse<String> anonymous =
          http.send(request("/metrics").build(), HttpResponse.BodyHandlers.ofString());
      assertThat(anonymous.statusCode()).isEqualTo(401);
      HttpResponse<String> r =
          http.send(
              request("/metrics").header("Authorization", "Bearer scraper-token").build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type")).hasValue(KubeletMetrics.CONTENT_TYPE);
      assertThat(r.body()).contains("kubelet_node_name{node=\"node-a\"} 1.0");
      HttpResponse<String> post =
          http.send(
              request("/metrics")
                  .header("Authorization", "Bearer scraper-token")
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
    }
    assertThat(asked)
        .extracting(Attributes::verb, Attributes::resource, Attributes::subresource)
        .contains(org.assertj.core.groups.Tuple.tuple("get", "nodes", "metrics"));
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + path));
  }

  @Test
  void aRealPrometheusScrapesEveryMetricsPathOverTls() throws Exception {
    start();
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path prom = Files.createDirectories(dir.resolve("prometheus"));
    StringBuilder config =
        new StringBuilder("global: {scrape_interval: 1s, scrape_timeout: 1s}\nscrape_configs:\n");
    for (KubeletMetrics.Endpoint e : KubeletMetrics.Endpoint.values()) {
      config
          .append("- job_name: '")
          .append(e.path())
          .append("'\n  scheme: https\n  metrics_path: '")
          .append(e.path())
          .append("'\n  tls_config: {insecure_skip_verify: true}\n")
          .append("  authorization: {credentials: scraper-token}\n")
          .append("  static_configs: [{targets: ['127.0.0.1:")
          .append(server.port())
          .append("']}]\n");
    }
    Files.writeString(prom.resolve("prometheus.yml"), config);
    Process prometheus =
        new ProcessBuilder(
                "prometheus",
                "--config.file=" + prom.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + prom.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port)
            .redirectErrorStream(true)
            .redirectOutput(prom.resolve("prometheus.log").toFile())
            .start();
    ObjectMapper json = new ObjectMapper();
    try (HttpClient http = HttpClient.newHttpClient()) {
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                JsonNode active =
                    json.readTree(
                            http.send(
                                    HttpRequest.newBuilder(
                                            URI.create(
                                                "http://127.0.0.1:" + port + "/api/v1/targets"))
                                        .build(),
                                    HttpResponse.BodyHandlers.ofString())
                                .body())
                        .at("/data/activeTargets");
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
}
