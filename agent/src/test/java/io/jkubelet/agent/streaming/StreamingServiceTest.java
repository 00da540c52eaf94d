package io.jkubelet.agent.streaming;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.handler.codec.http.HttpResponse;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The streaming endpoints over a real Netty server and real SPDY and WebSocket clients, against
 * {@code FakeRuntime}: protocol negotiation, stream setup, stdin and its end, the status on the
 * error stream, resize, port-forward, errors, and that a client that goes away leaves no stream.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StreamingServiceTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private final TestStreamingServer server;

  StreamingServiceTest() throws InterruptedException {
    server = new TestStreamingServer();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private SpdyTestClient spdy() throws InterruptedException {
    return new SpdyTestClient(server.port());
  }

  // --- SPDY exec ---

  @Test
  void spdyExecPipesStdinToTheCommandAndEndsWithASuccessStatus() throws Exception {
    try (SpdyTestClient c = spdy()) {
      HttpResponse r =
          c.request(
              "POST",
              "/exec/default/web/app?command=cat&input=1&output=1&error=1",
              "v4.channel.k8s.io",
              "v3.channel.k8s.io");
      assertThat(r.status().code()).isEqualTo(101);
      assertThat(r.headers().get("X-Stream-Protocol-Version")).isEqualTo("v4.channel.k8s.io");
      int error = c.open("streamType", "error");
      int stdin = c.open("streamType", "stdin");
      int stdout = c.open("streamType", "stdout");
      int stderr = c.open("streamType", "stderr");
      await().atMost(WAIT).until(() -> c.replied.size() == 4);

      c.send(stdin, "hello\n");
      c.fin(stdin);

      await().atMost(WAIT).until(() -> c.finished.containsAll(java.util.List.of(error, stdout)));
      assertThat(c.data(stdout)).isEqualTo("hello\n");
      assertThat(c.data(stderr)).isEmpty();
      assertThat(c.data(error)).isEqualTo("{\"metadata\":{},\"status\":\"Success\"}");
      assertThat(server.runtime.calls()).contains("execStream " + server.containerId + " cat");
    }
  }

  @Test
  void spdyExecReportsANonZeroExitAsV4StatusAndAsTextBeforeV4() throws Exception {
    server.runtime.onExecStream(
        (ctr, cmd, io) -> {
          if (io.stderr() != null) {
            io.stderr().write("bad\n".getBytes(UTF_8));
          }
          return 3;
        });
    try (SpdyTestClient c = spdy()) {
      c.request(
          "POST", "/exec/default/web/app?command=false&output=1&error=1", "v4.channel.k8s.io");
      int error = c.open("streamType", "error");
      c.open("streamType", "stdout");
      int stderr = c.open("streamType", "stderr");
      await().atMost(WAIT).until(() -> c.finished.contains(error));
      assertThat(c.data(error))
          .contains("\"reason\":\"NonZeroExitCode\"")
          .contains("{\"reason\":\"ExitCode\",\"message\":\"3\"}");
      assertThat(c.data(stderr)).isEqualTo("bad\n");
    }
    try (SpdyTestClient c = spdy()) {
      c.request("POST", "/exec/default/web/app?command=false&output=1", "v2.channel.k8s.io");
      int error = c.open("streamType", "error");
      c.open("streamType", "stdout");
      await().atMost(WAIT).until(() -> c.finished.contains(error));
      assertThat(c.data(error))
          .isEqualTo(
              "command terminated with non-zero exit code: Error executing in Docker Container: 3");
    }
  }

  @Test
  void spdyTtyResizesReachTheRuntime() throws Exception {
    CountDownLatch done = new CountDownLatch(1);
    server.runtime.onExecStream(
        (ctr, cmd, io) -> {
          done.await();
          return 0;
        });
    try (SpdyTestClient c = spdy()) {
      c.request(
          "POST", "/exec/default/web/app?command=sh&input=1&output=1&tty=1", "v4.channel.k8s.io");
      int error = c.open("streamType", "error");
      c.open("streamType", "stdin");
      c.open("streamType", "stdout");
      int resize = c.open("streamType", "resize");
      await().atMost(WAIT).until(() -> c.replied.size() == 4);
      c.send(resize, "{\"Width\":100,\"Height\":30}");
      await()
          .atMost(WAIT)
          .until(() -> server.runtime.resizes().contains(server.containerId + " 100x30"));
      done.countDown();
      await().atMost(WAIT).until(() -> c.finished.contains(error));
    }
  }

  @Test
  void aClientThatGoesAwayMidStreamLeavesNoStreamRunning() throws Exception {
    server.runtime.onExecStream(
        (ctr, cmd, io) -> {
          Thread.sleep(Duration.ofMinutes(5).toMillis()); // until closed
          return 0;
        });
    try (SpdyTestClient c = spdy()) {
      c.request(
          "POST", "/exec/default/web/app?command=sleep&input=1&output=1", "v4.channel.k8s.io");
      c.open("streamType", "error");
      c.open("streamType", "stdin");
      c.open("streamType", "stdout");
      await().atMost(WAIT).until(() -> server.runtime.openStreams() == 1);

      c.drop();

      await().atMost(WAIT).until(() -> server.runtime.openStreams() == 0);
    }
  }

  // --- refusals ---

  @Test
  void refusalsCarryUpstreamsStatusAndMessage() throws Exception {
    assertRefused(
        "/exec/default/web/app?command=ls&output=1",
        new String[0],
        400,
        "unable to upgrade: X-Stream-Protocol-Version is required");
    assertRefused(
        "/exec/default/web/app?command=ls&output=1",
        new String[] {"v9.channel.k8s.io"},
        403,
        "unable to upgrade: unable to negotiate protocol: client supports"
            + " [v9.channel.k8s.io], server accepts [v4.channel.k8s.io v3.channel.k8s.io"
            + " v2.channel.k8s.io channel.k8s.io]");
    assertRefused(
        "/exec/default/web/app?command=ls",
        new String[] {"v4.channel.k8s.io"},
        400,
        "you must specify at least 1 of stdin, stdout, stderr");
    assertRefused(
        "/exec/default/nope/app?command=ls&output=1",
        new String[] {"v4.channel.k8s.io"},
        404,
        "pod does not exist");
    assertRefused(
        "/exec/default/web/nope?command=ls&output=1",
        new String[] {"v4.channel.k8s.io"},
        404,
        "container not found (\"nope\")");
    assertRefused(
        "/portForward/default/web/other-uid",
        new String[] {"portforward.k8s.io"},
        404,
        "pod not found");
  }

  private void assertRefused(String uri, String[] protocols, int status, String message)
      throws Exception {
    try (SpdyTestClient c = spdy()) {
      HttpResponse r = c.request("POST", uri, protocols);
      assertThat(r.status().code()).as(uri).isEqualTo(status);
      await().atMost(WAIT).until(() -> c.refusalBody.toString().equals(message + "\n"));
    }
  }

  // --- SPDY port-forward ---

  @Test
  void spdyPortForwardJoinsTheDataStreamToThePortAndReportsFailuresOnTheErrorStream()
      throws Exception {
    server.runtime.listen(
        8080,
        (in, out) -> {
          byte[] request = in.readAllBytes();
          out.write(("got " + new String(request, UTF_8)).getBytes(UTF_8));
        });
    try (SpdyTestClient c = spdy()) {
      HttpResponse r = c.request("POST", "/portForward/default/web", "portforward.k8s.io");
      assertThat(r.headers().get("X-Stream-Protocol-Version")).isEqualTo("portforward.k8s.io");
      int error = c.open("streamType", "error", "port", "8080", "requestID", "0");
      int data = c.open("streamType", "data", "port", "8080", "requestID", "0");
      await().atMost(WAIT).until(() -> c.replied.size() == 2);
      c.send(data, "ping");
      c.fin(data);
      await().atMost(WAIT).until(() -> c.finished.containsAll(java.util.List.of(data, error)));
      assertThat(c.data(data)).isEqualTo("got ping");
      assertThat(c.data(error)).isEmpty();

      int error2 = c.open("streamType", "error", "port", "9", "requestID", "1");
      c.open("streamType", "data", "port", "9", "requestID", "1");
      await().atMost(WAIT).until(() -> c.finished.contains(error2));
      assertThat(c.data(error2))
          .isEqualTo(
              "error forwarding port 9 to pod "
                  + server.sandboxId
                  + ", uid : connect to"
                  + " 127.0.0.1:9 in the pod's network namespace: Connection refused");

      int bad = c.open("streamType", "data");
      await().atMost(WAIT).until(() -> c.reset.contains(bad));
    }
  }

  // --- run ---

  @Test
  void runAnswersTheCommandsOutputAndANonZeroExitAsA500() throws Exception {
    server.runtime.onExec(
        (ctr, cmd) ->
            new io.jkubelet.agent.runtime.ExecResult(
                cmd.get(1).equals("fail") ? 2 : 0, String.join("+", cmd), false));
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    java.net.http.HttpResponse<String> ok =
        http.send(
            java.net.http.HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:" + server.port() + "/run/default/web/app?cmd=echo%20hi"))
                .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).isEqualTo("echo+hi");

    java.net.http.HttpResponse<String> failed =
        http.send(
            java.net.http.HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:" + server.port() + "/run/default/web/app?cmd=x%20fail"))
                .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(failed.body()).isEqualTo("command 'x fail' exited with 2: x+fail\n");
  }

  // --- WebSocket ---

  private URI ws(String path) {
    return URI.create("ws://127.0.0.1:" + server.port() + path);
  }

  @Test
  void webSocketExecAnnouncesTheStreamsThenSendsOutputAndTheStatus() throws Exception {
    server.runtime.onExecStream(
        (ctr, cmd, io) -> {
          io.stdout().write("out\n".getBytes(UTF_8));
          io.stderr().write("err\n".getBytes(UTF_8));
          return 2;
        });
    WsTestClient c =
        new WsTestClient(
            ws("/exec/default/web/app?command=sh&command=-c&command=x&output=1&error=1"),
            "v4.channel.k8s.io");
    assertThat(c.socket.getSubprotocol()).isEqualTo("v4.channel.k8s.io");

    assertThat(c.next()).containsExactly(1);
    assertThat(c.next()).containsExactly(1, 'o', 'u', 't', '\n');
    assertThat(c.next()).containsExactly(2, 'e', 'r', 'r', '\n');
    byte[] status = c.next();
    assertThat(status[0]).isEqualTo((byte) 3);
    assertThat(new String(status, 1, status.length - 1, UTF_8))
        .contains("\"reason\":\"NonZeroExitCode\"");
    assertThat(c.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1000);
    assertThat(server.runtime.calls()).contains("execStream " + server.containerId + " sh -c x");
  }

  @Test
  void preV4WebSocketExecAsTheConformanceSuiteReadsItSendsNoStatusOnSuccess() throws Exception {
    server.runtime.onExecStream(
        (ctr, cmd, io) -> {
          io.stdout().write("remote execution test\n".getBytes(UTF_8));
          return 0;
        });
    WsTestClient c =
        new WsTestClient(
            ws("/exec/default/web/app?command=cat&command=/etc/resolv.conf&output=1&error=1"),
            "channel.k8s.io");

    assertThat(c.next()).containsExactly(1);
    byte[] out = c.next();
    assertThat(new String(out, 1, out.length - 1, UTF_8)).isEqualTo("remote execution test\n");
    assertThat(c.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1000);
    assertThat(c.messages).isEmpty();
  }

  @Test
  void base64WebSocketExecCarriesStdinAndOutputInBase64Text() throws Exception {
    WsTestClient c =
        new WsTestClient(
            ws("/exec/default/web/app?command=cat&input=1&output=1"), "v4.base64.channel.k8s.io");
    assertThat(new String(c.next(), UTF_8)).isEqualTo("1");

    c.socket
        .sendText("0" + java.util.Base64.getEncoder().encodeToString("hi\n".getBytes(UTF_8)), true)
        .get();

    assertThat(new String(c.next(), UTF_8))
        .isEqualTo("1" + java.util.Base64.getEncoder().encodeToString("hi\n".getBytes(UTF_8)));
    c.abort();
    await().atMost(WAIT).until(() -> server.runtime.openStreams() == 0);
  }

  @Test
  void webSocketPortForwardAnnouncesThePortOnBothChannelsAndRelays() throws Exception {
    server.runtime.listen(
        8080,
        (in, out) -> {
          byte[] buf = new byte[4];
          int n = in.readNBytes(buf, 0, 4);
          out.write(("got " + new String(buf, 0, n, UTF_8)).getBytes(UTF_8));
        });
    WsTestClient c =
        new WsTestClient(ws("/portForward/default/web?port=8080"), "v4.channel.k8s.io");

    byte[] first = c.next();
    byte[] second = c.next();
    assertThat(java.util.List.of(first[0], second[0]))
        .containsExactlyInAnyOrder((byte) 0, (byte) 1);
    assertThat(first).endsWith((byte) 0x90, (byte) 0x1f); // 8080, little-endian
    c.socket.sendBinary(ByteBuffer.wrap(new byte[] {0, 'p', 'i', 'n', 'g'}), true).get();

    assertThat(c.next()).containsExactly(0, 'g', 'o', 't', ' ', 'p', 'i', 'n', 'g');
    assertThat(c.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1000);
  }
}
