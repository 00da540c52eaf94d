package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link EngineProxy} in front of a fake engine that answers each request with its own request
 * line: kept-alive requests pass, one container's requests hang until released, a chunked body and
 * a hijacked stream pass byte for byte.
 */
@Timeout(30)
class EngineProxyTest {
  private Path dir;
  private ServerSocketChannel engine;
  private EngineProxy proxy;

  @BeforeEach
  void start() throws IOException {
    dir = Files.createTempDirectory(Path.of("/tmp"), "proxy-test");
    engine = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    engine.bind(UnixDomainSocketAddress.of(dir.resolve("engine.sock")));
    Thread.ofVirtual().start(this::serve);
    proxy = EngineProxy.start(dir.resolve("proxy.sock"), dir.resolve("engine.sock"));
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    engine.close();
    Files.deleteIfExists(dir.resolve("engine.sock"));
    Files.deleteIfExists(dir);
  }

  /** A fake engine: echoes each request's head as the body; after an attach, echoes raw bytes. */
  private void serve() {
    while (engine.isOpen()) {
      try {
        SocketChannel c = engine.accept();
        Thread.ofVirtual()
            .start(
                () -> {
                  try (c) {
                    while (true) {
                      String head = readUntil(c, "\r\n\r\n");
                      if (head == null) {
                        return;
                      }
                      String line = head.substring(0, head.indexOf("\r\n"));
                      if (head.contains("Transfer-Encoding: chunked")) {
                        line += " body=" + readUntil(c, "0\r\n\r\n");
                      }
                      send(c, "HTTP/1.1 200 OK\r\nContent-Length: " + line.length() + "\r\n\r\n");
                      send(c, line);
                      if (line.contains("/attach")) {
                        ByteBuffer buf = ByteBuffer.allocate(1024);
                        while (c.read(buf.clear()) > 0) {
                          c.write(buf.flip());
                        }
                        return;
                      }
                    }
                  } catch (IOException e) {
                    // closed
                  }
                });
      } catch (IOException e) {
        return;
      }
    }
  }

  @Test
  void passesKeptAliveRequestsAndHoldsOneContainersUntilReleased() throws Exception {
    try (SocketChannel a = connect();
        SocketChannel b = connect()) {
      assertThat(ask(a, "GET /_ping")).isEqualTo("GET /_ping HTTP/1.1");
      assertThat(ask(a, "GET /containers/other/json")).contains("/containers/other/json");

      EngineProxy.Hang hang = proxy.hang("abc123");
      CompletableFuture<String> held =
          CompletableFuture.supplyAsync(() -> askUnchecked(b, "POST /containers/abc123/stop?t=2"));
      await().atMost(Duration.ofSeconds(5)).until(() -> !hang.held().isEmpty());
      assertThat(hang.held().getFirst().path()).isEqualTo("/containers/abc123/stop");
      // Other containers' requests, and the engine's own, still pass.
      assertThat(ask(a, "GET /containers/other/json")).contains("other");
      assertThat(ask(a, "GET /version")).contains("/version");
      assertThat(held).isNotDone();

      hang.release();
      assertThat(held.get(5, TimeUnit.SECONDS))
          .isEqualTo("POST /containers/abc123/stop?t=2 HTTP/1.1");
      assertThat(ask(b, "GET /containers/abc123/json")).contains("abc123"); // released: no hang
    }
  }

  @Test
  void passesChunkedBodiesAndHijackedStreams() throws Exception {
    try (SocketChannel a = connect()) {
      send(
          a,
          "PUT /containers/x/archive HTTP/1.1\r\nHost: d\r\nTransfer-Encoding: chunked\r\n\r\n"
              + "5\r\nhello\r\n0\r\n\r\n");
      assertThat(response(a)).endsWith("body=5\r\nhello\r\n0\r\n\r\n");
      assertThat(ask(a, "POST /containers/x/attach?stream=1")).contains("/attach");
      send(a, "GET / HTTP/1.1 is no request now\r\n\r\n");
      assertThat(readUntil(a, "\r\n\r\n")).isEqualTo("GET / HTTP/1.1 is no request now\r\n\r\n");
    }
  }

  @Test
  void closingTheProxyEndsHeldRequests() throws Exception {
    try (SocketChannel a = connect()) {
      EngineProxy.Hang hang = proxy.hang(r -> r.method().equals("DELETE"));
      send(a, "DELETE /containers/y HTTP/1.1\r\nHost: d\r\n\r\n");
      await().atMost(Duration.ofSeconds(5)).until(() -> hang.held().size() == 1);
      proxy.close();
      assertThat(a.read(ByteBuffer.allocate(16))).isEqualTo(-1);
    }
  }

  private SocketChannel connect() throws IOException {
    return SocketChannel.open(UnixDomainSocketAddress.of(proxy.socket()));
  }

  private static String ask(SocketChannel c, String requestLine) throws IOException {
    send(c, requestLine + " HTTP/1.1\r\nHost: docker\r\n\r\n");
    return response(c);
  }

  private static String askUnchecked(SocketChannel c, String requestLine) {
    try {
      return ask(c, requestLine);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The body of a Content-Length response. */
  private static String response(SocketChannel c) throws IOException {
    String head = readUntil(c, "\r\n\r\n");
    int at = head.indexOf("Content-Length: ") + "Content-Length: ".length();
    int length = Integer.parseInt(head.substring(at, head.indexOf("\r\n", at)));
    ByteBuffer body = ByteBuffer.allocate(length);
    while (body.hasRemaining() && c.read(body) >= 0) {}
    return new String(body.array(), StandardCharsets.ISO_8859_1);
  }

  private static void send(SocketChannel c, String s) throws IOException {
    ByteBuffer buf = ByteBuffer.wrap(s.getBytes(StandardCharsets.ISO_8859_1));
    while (buf.hasRemaining()) {
      c.write(buf);
    }
  }

  /** Bytes up to and with {@code end}, one at a time; null at the stream's end before any. */
  private static String readUntil(SocketChannel c, String end) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteBuffer one = ByteBuffer.allocate(1);
    while (true) {
      if (c.read(one.clear()) < 0) {
        return out.size() == 0 ? null : out.toString(StandardCharsets.ISO_8859_1);
      }
      out.write(one.get(0));
      if (out.toString(StandardCharsets.ISO_8859_1).endsWith(end)) {
        return out.toString(StandardCharsets.ISO_8859_1);
      }
    }
  }
}
