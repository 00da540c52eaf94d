package io.jkubelet.agent.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.StandardHttpRequest;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.RecordingSleeper;
import io.jkubelet.agent.util.Time;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code kubeAPIQPS}/{@code kubeAPIBurst}: the clients of a limited group spend one shared token
 * bucket, and wait for it on the caller's thread (on the fake clock); the others are not limited.
 */
@Timeout(60)
class RateLimiterTest {
  private final FakeClock clock = new FakeClock(Instant.parse("2026-03-01T00:00:00Z"));
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final Time time = new Time(clock, sleeper, new FakeSchedulers(clock));
  private final AtomicInteger served = new AtomicInteger();
  private HttpServer server;
  private ApiClients clients;

  @BeforeEach
  void apiServer() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        ex -> {
          served.incrementAndGet();
          byte[] b =
              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":404}"
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(404, b.length);
          ex.getResponseBody().write(b);
          ex.close();
        });
    server.start();
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
            .build();
    clients = new ApiClients(config, b -> {}, b -> {});
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static void get(KubernetesClient c, int times) {
    for (int i = 0; i < times; i++) {
      c.pods().inNamespace("ns").withName("p" + i).get();
    }
  }

  @Test
  void theGroupsClientsShareOneBucketAndWaitForIt() {
    ApiClients kube = clients.limited("kube-api", RateLimit.kubeApi(5, 10), time);
    try (KubernetesClient a = kube.newClient();
        KubernetesClient b = kube.newClient()) {
      get(a, 6);
      get(b, 4);
      assertThat(sleeper.sleeps()).as("the burst of 10").isEmpty();
      get(b, 3);
      get(a, 2);
    }
    assertThat(served).hasValue(15);
    assertThat(sleeper.sleeps())
        .as("then 5 per second")
        .containsExactlyElementsOf(Collections.nCopies(5, Duration.ofMillis(200)));
  }

  @Test
  void clientsOutsideTheGroupAreNotLimited() {
    clients.limited("kube-api", RateLimit.kubeApi(5, 10), time);
    try (KubernetesClient heartbeat = clients.newClient()) {
      get(heartbeat, 30);
    }
    assertThat(served).hasValue(30);
    assertThat(sleeper.sleeps()).isEmpty();
  }

  @Test
  void zeroIsClientGosDefaultAndNoneIsUnlimited() {
    assertThat(RateLimit.kubeApi(0, 0)).isEqualTo(new RateLimit(5, 10));
    assertThat(RateLimit.events(0, 10).limited()).isFalse();
    assertThat(RateLimit.events(7, 3)).isEqualTo(new RateLimit(7, 3));
    assertThat(clients.limited("events", RateLimit.NONE, time)).isSameAs(clients);
  }

  @Test
  void onTheEnginesThreadsARequestSpendsItsTokenWithoutWaiting() throws Exception {
    AtomicInteger engine = new AtomicInteger(1);
    RateLimiter limiter =
        new RateLimiter("kube-api", new RateLimit(1, 1), clock, sleeper, () -> engine.get() == 0);
    HttpRequest request = new StandardHttpRequest.Builder().uri("http://127.0.0.1/api").build();
    limiter.before(null, request, null); // the burst
    limiter.before(null, request, null); // on an engine thread: no wait, 1 s of debt
    assertThat(sleeper.sleeps()).isEmpty();
    engine.set(0);
    limiter.before(null, request, null);
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(2));
    assertThat(limiter.waits()).isEqualTo(1);
  }
}
