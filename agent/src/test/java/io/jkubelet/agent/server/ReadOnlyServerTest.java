package io.jkubelet.agent.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodList;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.testing.PlatformThreads;
import io.jkubelet.agent.util.ApiSerialization;
import io.jkubelet.agent.util.Lifecycle.Health;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReadOnlyServerTest {
  private final AtomicReference<Health> pleg = new AtomicReference<>(Health.OK);
  private final Map<String, Supplier<Health>> checks = new LinkedHashMap<>();
  private ReadOnlyServer server;
  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private void start() {
    checks.put("syncloop", () -> Health.OK);
    checks.put("pleg", pleg::get);
    server =
        new ReadOnlyServer(
            "127.0.0.1",
            0,
            () -> List.of(TestPods.simple("u1", "p", "c")),
            checks,
            ReadOnlyServer.Events.NONE,
            List::of);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop();
  }

  @Test
  void healthzIsOkOr500NamingTheUnhealthySubsystem() throws Exception {
    start();
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
    assertThat(get("/healthz").body()).isEqualTo("ok");
    pleg.set(Health.failing("PLEG is not healthy: pleg was last seen active 181s ago"));
    HttpResponse<String> r = get("/healthz");
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(r.body()).contains("[-]pleg failed: PLEG is not healthy").doesNotContain("syncloop");
  }

  @Test
  void letsEveryRequestInAndStartsNoThreadOfItsOwn() throws Exception {
    Set<Thread> before = PlatformThreads.live();
    start();
    HttpResponse<String> withToken =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/pods"))
                .header("Authorization", "Bearer not-a-token")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(withToken.statusCode()).isEqualTo(200);
    assertThat(get("/probes").body()).isEqualTo("{\"items\":[]}");
    // Served on the process's shared Netty loops (started here if no test before did): not the
    // JDK's HTTP server and its dispatcher and idle-timeout threads. (This test's own client
    // starts workers of its own.)
    Set<Thread> started = PlatformThreads.live();
    started.removeAll(before);
    assertThat(started)
        .extracting(Thread::getName)
        .allMatch(n -> n.startsWith("netty-io") || n.startsWith("HttpClient-"));
  }

  @Test
  void podsIsAV1PodList() throws Exception {
    start();
    HttpResponse<String> r = get("/pods");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    PodList list = ApiSerialization.SHARED.unmarshal(r.body(), PodList.class);
    assertThat(list.getApiVersion()).isEqualTo("v1");
    assertThat(list.getKind()).isEqualTo("PodList");
    assertThat(list.getItems()).extracting(p -> p.getMetadata().getUid()).containsExactly("u1");
    assertThat(get("/nope").statusCode()).isEqualTo(404);
  }

  @Test
  void servedDocumentsAnswerGetOnTheirExactPathOnly() throws Exception {
    checks.put("syncloop", () -> Health.OK);
    server =
        new ReadOnlyServer("127.0.0.1", 0, List::of, checks, ReadOnlyServer.Events.NONE, List::of)
            .serve(
                "/metrics",
                new ReadOnlyServer.Resource(
                    "text/plain; version=0.0.4", () -> "up 1\n".getBytes(StandardCharsets.UTF_8)))
            .serve(
                "/stats/summary",
                new ReadOnlyServer.Resource(
                    "application/json",
                    () -> {
                      throw new IllegalStateException("no cgroups");
                    }));
    server.start();

    HttpResponse<String> r = get("/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4");
    assertThat(r.body()).isEqualTo("up 1\n");
    assertThat(get("/metrics/other").statusCode()).isEqualTo(404);
    assertThat(get("/stats/summary").statusCode()).isEqualTo(500);
    HttpResponse<String> post =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/metrics"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
  }
}
