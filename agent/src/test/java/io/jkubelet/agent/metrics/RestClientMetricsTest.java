package io.jkubelet.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class RestClientMetricsTest {
  private final KubeletMetrics metrics = new KubeletMetrics("n");
  private HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private KubernetesClient client(String url) {
    var config =
        new ConfigBuilder()
            .withMasterUrl(url)
            .withRequestRetryBackoffLimit(1) // as the agent's clients (client.ApiClients)
            .withRequestRetryBackoffInterval(10)
            .withConnectionTimeout(2000)
            .build();
    return new RestClientMetrics(metrics)
        .install(new KubernetesClientBuilder().withConfig(config))
        .build();
  }

  @Test
  void everyAnswerIsCountedByCodeMethodAndHost() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        ex -> {
          byte[] body =
              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":404}"
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(404, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.start();
    int port = server.getAddress().getPort();
    try (KubernetesClient client = client("http://127.0.0.1:" + port)) {
      assertThat(client.pods().inNamespace("default").withName("x").get()).isNull();
      assertThat(client.pods().inNamespace("default").withName("y").get()).isNull();
    }

    assertThat(new String(metrics.scrape(KubeletMetrics.Endpoint.METRICS), StandardCharsets.UTF_8))
        .contains(
            "rest_client_requests_total{code=\"404\",host=\"127.0.0.1:"
                + port
                + "\",method=\"GET\"} 2.0");
  }

  @Test
  void aServerThatDoesNotAnswerCountsAsAnError() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    try (KubernetesClient client = client("http://127.0.0.1:" + port)) {
      assertThatThrownBy(() -> client.pods().inNamespace("default").withName("x").get())
          .isInstanceOf(RuntimeException.class);
    }

    assertThat(new String(metrics.scrape(KubeletMetrics.Endpoint.METRICS), StandardCharsets.UTF_8))
        .contains(
            "rest_client_requests_total{code=\"<error>\",host=\"127.0.0.1:"
                + port
                + "\",method=\"GET\"} 1.0");
  }
}
