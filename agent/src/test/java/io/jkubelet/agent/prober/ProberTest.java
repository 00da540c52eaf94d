package io.jkubelet.agent.prober;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.jkubelet.agent.runtime.ExecResult;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class ProberTest {
  private static final String LOOPBACK = "127.0.0.1";
  private static final ProbeTarget TARGET =
      new ProbeTarget(LOOPBACK, "docker://c1", Duration.ofSeconds(2));

  private final ProbeHttp http = new ProbeHttp(Prober.MAX_BODY_BYTES);
  private final AtomicReference<String> userAgent = new AtomicReference<>();
  private final AtomicReference<String> custom = new AtomicReference<>();
  private final CountDownLatch released = new CountDownLatch(1);
  private final List<String> hosts = new CopyOnWriteArrayList<>();
  private final List<Integer> clients = new CopyOnWriteArrayList<>();
  private HttpServer server;

  @BeforeEach
  void startServer() throws IOException {
    http.start();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/ok", ex -> respond(ex, 200, "fine"));
    server.createContext("/moved", ex -> respond(ex, 302, ""));
    server.createContext("/broken", ex -> respond(ex, 500, "oops"));
    server.createContext("/empty-error", ex -> respond(ex, 503, ""));
    server.createContext(
        "/long-error", ex -> respond(ex, 500, "{\"error\": \"db down\"}\n" + "é".repeat(400)));
    server.createContext("/big", ex -> respond(ex, 200, "x".repeat(50 * 1024)));
    server.createContext(
        "/stall",
        ex -> {
          ex.sendResponseHeaders(200, 0); // chunked: the body never ends
          ex.getResponseBody().write("part".getBytes(StandardCharsets.UTF_8));
          ex.getResponseBody().flush();
          try {
            released.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          ex.close();
        });
    server.start();
  }

  private void respond(com.sun.net.httpserver.HttpExchange ex, int status, String body)
      throws IOException {
    userAgent.set(ex.getRequestHeaders().getFirst("User-Agent"));
    hosts.add(ex.getRequestHeaders().getFirst("Host"));
    clients.add(ex.getRemoteAddress().getPort());
    custom.set(ex.getRequestHeaders().getFirst("X-Custom"));
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    } catch (IOException e) {
      // the prober closes early on big bodies
    }
  }

  @AfterEach
  void stopServer() {
    released.countDown();
    server.stop(0);
    http.stop();
  }

  private int port() {
    return server.getAddress().getPort();
  }

  private Prober.HttpGetProber get(String path, List<Prober.Header> headers) {
    return new Prober.HttpGetProber(Prober.Scheme.HTTP, null, port(), path, headers, http);
  }

  @Test
  void http200IsSuccessWithTheKubeProbeUserAgent() {
    assertThat(get("/ok", List.of()).probe(TARGET)).isEqualTo(ProbeOutcome.success("fine"));
    assertThat(userAgent.get()).isEqualTo("kube-probe/1.20");
  }

  @Test
  void http3xxIsSuccess() {
    assertThat(get("/moved", List.of()).probe(TARGET).result()).isEqualTo(ProbeResult.SUCCESS);
  }

  @Test
  void http500IsFailureWithTheStatusCodeAndTheBody() {
    assertThat(get("/broken", List.of()).probe(TARGET))
        .isEqualTo(ProbeOutcome.failure("HTTP probe failed with statuscode: 500, body: \"oops\""));
    assertThat(get("/empty-error", List.of()).probe(TARGET))
        .isEqualTo(ProbeOutcome.failure("HTTP probe failed with statuscode: 503"));
  }

  @Test
  void aFailuresBodyIsCutAfter256BytesWithoutSplittingACharacter() {
    String output = get("/long-error", List.of()).probe(TARGET).output();
    // 20 bytes of JSON and a newline, then 117 two-byte characters: 255 bytes; the 118th would
    // not fit.
    assertThat(output)
        .isEqualTo(
            "HTTP probe failed with statuscode: 500, body: \"{\\\"error\\\": \\\"db down\\\"}\\n"
                + "é".repeat(117)
                + "\"...");
  }

  @Test
  void givenHeadersAreSentAndAGivenUserAgentWins() {
    get("/ok", List.of(new Prober.Header("User-Agent", "mine"), new Prober.Header("X-Custom", "v")))
        .probe(TARGET);
    assertThat(userAgent.get()).isEqualTo("mine");
    assertThat(custom.get()).isEqualTo("v");
  }

  @Test
  void atMostTenKilobytesOfTheBodyAreRead() {
    ProbeOutcome o = get("/big", List.of()).probe(TARGET);
    assertThat(o.result()).isEqualTo(ProbeResult.SUCCESS);
    assertThat(o.output()).hasSize(10 * 1024);
  }

  @Test
  void namedPortFromTheContainerReachesTheServer() {
    var container =
        new ContainerBuilder()
            .withName("web")
            .addNewPort()
            .withName("http")
            .withContainerPort(port())
            .endPort()
            .build();
    var probe =
        new ProbeBuilder()
            .withNewHttpGet()
            .withPort(new IntOrString("http"))
            .withPath("/ok")
            .endHttpGet()
            .build();
    var valid = (ProbeDefinition.Valid) Probers.of(probe, container, new FakeExecRunner(), http);
    assertThat(valid.prober().probe(TARGET)).isEqualTo(ProbeOutcome.success("fine"));
  }

  @Test
  void httpConnectionRefusedIsFailureWithTheError() throws IOException {
    int closed = closedPort();
    ProbeOutcome o =
        new Prober.HttpGetProber(Prober.Scheme.HTTP, null, closed, "/", List.of(), http)
            .probe(TARGET);
    assertThat(o.result()).isEqualTo(ProbeResult.FAILURE);
    assertThat(o.output())
        .isEqualTo(
            "Get \"http://127.0.0.1:"
                + closed
                + "/\": dial tcp 127.0.0.1:"
                + closed
                + ": connect: connection refused");
  }

  @Test
  void aBodyThatNeverEndsFailsTheAttemptAtItsTimeout() {
    assertThat(get("/stall", List.of()).probe(TARGET))
        .isEqualTo(
            ProbeOutcome.failure(
                "Get \"http://127.0.0.1:"
                    + port()
                    + "/stall\": context deadline exceeded (Client.Timeout or context cancellation"
                    + " while reading body)"));
  }

  @Test
  void aServerThatNeverAnswersFailsTheAttemptAtItsTimeout() throws IOException {
    try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      ProbeOutcome o =
          new Prober.HttpGetProber(
                  Prober.Scheme.HTTP, null, silent.getLocalPort(), "/", List.of(), http)
              .probe(TARGET);
      assertThat(o)
          .isEqualTo(
              ProbeOutcome.failure(
                  "Get \"http://127.0.0.1:"
                      + silent.getLocalPort()
                      + "/\": context deadline exceeded (Client.Timeout exceeded while awaiting"
                      + " headers)"));
    }
  }

  @Test
  void eachAttemptOpensAConnectionOfItsOwnAndSendsTheProbesHostHeader() {
    Prober.HttpGetProber p = get("/ok", List.of(new Prober.Header("Host", "app.example")));
    assertThat(p.probe(TARGET)).isEqualTo(ProbeOutcome.success("fine"));
    assertThat(p.probe(TARGET)).isEqualTo(ProbeOutcome.success("fine"));
    assertThat(hosts).containsExactly("app.example", "app.example");
    assertThat(clients).as("client ports").doesNotHaveDuplicates().hasSize(2);
    assertThat(get("/ok", List.of()).probe(TARGET)).isEqualTo(ProbeOutcome.success("fine"));
    assertThat(hosts).last().isEqualTo("127.0.0.1:" + port());
  }

  @Test
  void tcpConnectSucceedsOnAListeningSocket() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      assertThat(new Prober.TcpSocketProber(null, s.getLocalPort()).probe(TARGET))
          .isEqualTo(ProbeOutcome.success(""));
    }
  }

  @Test
  void tcpConnectFailsOnAClosedPortLikeUpstream() throws IOException {
    int closed = closedPort();
    assertThat(new Prober.TcpSocketProber(LOOPBACK, closed).probe(TARGET))
        .isEqualTo(
            ProbeOutcome.failure("dial tcp 127.0.0.1:" + closed + ": connect: connection refused"));
  }

  @Test
  void anExecFailureKeepsTheLastFiveLinesOfItsOutput() {
    FakeExecRunner runner = new FakeExecRunner();
    Prober.ExecProber exec = new Prober.ExecProber(List.of("check"), runner);
    runner.setResult(
        new ExecResult(2, "line1\nline2\nline3\nline4\nline5\nline6\nline7\n\n", false));
    assertThat(exec.probe(TARGET))
        .isEqualTo(ProbeOutcome.failure("...line3\nline4\nline5\nline6\nline7 (exit code 2)"));
    runner.setResult(new ExecResult(1, "x".repeat(5000), false));
    assertThat(exec.probe(TARGET).output())
        .isEqualTo("..." + "x".repeat(FailureDetail.EXEC_CHARS) + " (exit code 1)");
  }

  @Test
  void execFollowsTheExitCodeAndTimeout() {
    FakeExecRunner runner = new FakeExecRunner();
    Prober.ExecProber exec = new Prober.ExecProber(List.of("cat", "/tmp/healthy"), runner);

    runner.setResult(new ExecResult(0, "healthy", false));
    assertThat(exec.probe(TARGET)).isEqualTo(ProbeOutcome.success("healthy"));
    runner.setResult(new ExecResult(1, "no such file", false));
    assertThat(exec.probe(TARGET)).isEqualTo(ProbeOutcome.failure("no such file (exit code 1)"));
    runner.setResult(new ExecResult(3, "", false));
    assertThat(exec.probe(TARGET)).isEqualTo(ProbeOutcome.failure("command exited with code 3"));
    runner.setResult(new ExecResult(-1, "", true));
    assertThat(exec.probe(TARGET)).isEqualTo(ProbeOutcome.failure("command timed out"));
    runner.setResult(new ExecResult(-1, "waiting for db\n", true));
    assertThat(exec.probe(TARGET))
        .isEqualTo(ProbeOutcome.failure("command timed out: waiting for db"));
    runner.setError(new IllegalStateException("no such container"));
    assertThat(exec.probe(TARGET).result()).isEqualTo(ProbeResult.UNKNOWN);

    assertThat(runner.calls())
        .first()
        .isEqualTo(
            new FakeExecRunner.Call(
                "docker://c1", List.of("cat", "/tmp/healthy"), Duration.ofSeconds(2)));
  }

  /** A loopback port that nothing listens on (bound, then closed). */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
