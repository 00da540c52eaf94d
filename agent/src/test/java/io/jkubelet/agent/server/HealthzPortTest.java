package io.jkubelet.agent.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.util.Lifecycle.Health;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HealthzPortTest {
  private final HttpClient http = HttpClient.newHttpClient();
  private HealthzPort port;

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @AfterEach
  void stop() {
    port.stop();
  }

  @Test
  void answersOkBeforeTheAgentIsBuiltThenRunsTheChecksItIsHanded() throws Exception {
    port = new HealthzPort("127.0.0.1", freePort());
    port.start();
    // What kubeadm's kubelet check asks while the agent is still being built (TLS bootstrap).
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
    assertThat(get("/healthz").body()).isEqualTo("ok");
    assertThat(get("/healthz/ping").body()).isEqualTo("ok");
    assertThat(get("/pods").statusCode()).isEqualTo(404);

    Map<String, Supplier<Health>> checks = new LinkedHashMap<>();
    checks.put("syncloop", () -> Health.failing("sync loop took too long"));
    port.serve(new Healthz(checks));
    port.start(); // the kubelet API starts it again: nothing happens
    HttpResponse<String> r = get("/healthz");
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(r.body()).contains("[-]syncloop failed: sync loop took too long");
    assertThat(get("/healthz/syncloop").statusCode()).isEqualTo(500);
  }

  @Test
  void portZeroServesNothingAndIsHealthy() {
    port = HealthzPort.NONE;
    port.start();
    assertThat(port.healthy().ok()).isTrue();
    assertThat(port.port()).isZero();
  }
}
