package io.jkubelet.agent.podconfig;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HttpSourceTest {
  private HttpServer server;
  private final AtomicReference<String> body = new AtomicReference<>("");
  private final AtomicInteger status = new AtomicInteger(200);
  private final AtomicReference<String> seenHeader = new AtomicReference<>();
  private final AtomicReference<List<Pod>> sent = new AtomicReference<>();
  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private HttpSource source;

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/pods",
        ex -> {
          seenHeader.set(ex.getRequestHeaders().getFirst("X-Token"));
          byte[] b = body.get().getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(status.get(), b.length == 0 ? -1 : b.length);
          ex.getResponseBody().write(b);
          ex.close();
        });
    server.start();
    source =
        new HttpSource(
            URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/pods"),
            Map.of("X-Token", List.of("secret")),
            new SourceOptions(PERIOD, "node1", clock, schedulers, sent::set));
  }

  @AfterEach
  void stop() {
    source.stop();
    server.stop(0);
  }

  private static final Duration PERIOD = Duration.ofSeconds(20);

  private static final String POD =
      "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},"
          + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"jkubelet/busybox:1.35\"}]}}";

  private List<String> names() {
    return sent.get().stream().map(p -> p.getMetadata().getName()).toList();
  }

  @Test
  void aPodOrAPodListBecomesStaticPodsFromTheUrlWithTheHeaders() throws Exception {
    body.set(POD.formatted("one"));
    source.poll();
    assertThat(names()).containsExactly("one-node1");
    assertThat(seenHeader.get()).isEqualTo("secret");
    Pod p = sent.get().get(0);
    assertThat(p.getMetadata().getAnnotations()).containsEntry(Annotations.CONFIG_SOURCE, "http");

    body.set(
        "apiVersion: v1\nkind: PodList\nitems:\n- "
            + POD.formatted("a")
            + "\n- "
            + POD.formatted("b")
            + "\n");
    source.poll();
    assertThat(names()).containsExactly("a-node1", "b-node1");
  }

  @Test
  void theFakeClockStepsThePolls() {
    body.set(POD.formatted("one"));
    source.start();
    assertThat(schedulers.created()).containsExactly("http-source");
    schedulers.runDue();
    assertThat(names()).as("the first poll runs at start").containsExactly("one-node1");
    assertThat(source.healthy().ok()).isTrue();

    body.set(POD.formatted("two"));
    schedulers.advance(PERIOD.minusMillis(1));
    assertThat(names()).as("not yet due").containsExactly("one-node1");
    schedulers.advance(Duration.ofMillis(1));
    assertThat(names()).containsExactly("two-node1");
  }

  @Test
  void aNon200AnswerMeansNoPods() throws Exception {
    body.set(POD.formatted("one"));
    source.poll();
    status.set(404);
    source.poll();
    assertThat(sent.get()).isEmpty();
  }

  @Test
  void aBrokenBodyKeepsTheLastValidPods() throws Exception {
    body.set(POD.formatted("one"));
    source.poll();
    body.set("{ not json");
    sent.set(null);
    source.poll();
    assertThat(sent.get()).as("nothing sent: the last set stands").isNull();
  }

  @Test
  void anUnreachableServerSendsAnEmptyFirstSetThenKeepsWhatItHad() throws Exception {
    HttpSource nowhere =
        new HttpSource(
            URI.create("http://127.0.0.1:1/pods"),
            Map.of(),
            new SourceOptions(PERIOD, "n", clock, schedulers, sent::set));
    nowhere.poll();
    assertThat(sent.get()).isEmpty();
    assertThat(nowhere.healthy().ok()).isFalse();
  }
}
