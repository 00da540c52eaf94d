package io.jkubelet.agent.streaming;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A WebSocket client on the JDK's {@code java.net.http.WebSocket}, as the conformance suite's
 * client behaves: it offers one subprotocol and records every whole message (binary as bytes, text
 * as its UTF-8 bytes) and the close.
 */
final class WsTestClient implements WebSocket.Listener {
  final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();
  final CompletableFuture<Integer> closed = new CompletableFuture<>();
  private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
  private final StringBuilder partialText = new StringBuilder();
  final WebSocket socket;
  private final HttpClient http = HttpClient.newHttpClient();

  WsTestClient(URI uri, String protocol) throws Exception {
    WebSocket.Builder b = http.newWebSocketBuilder();
    if (protocol != null) {
      b = b.subprotocols(protocol);
    }
    socket = b.buildAsync(uri, this).get(10, TimeUnit.SECONDS);
  }

  /** The next whole message, or fails after 10 s. */
  byte[] next() throws InterruptedException {
    byte[] m = messages.poll(10, TimeUnit.SECONDS);
    if (m == null) {
      throw new AssertionError("no message within 10 s");
    }
    return m;
  }

  @Override
  public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
    byte[] b = new byte[data.remaining()];
    data.get(b);
    partial.writeBytes(b);
    if (last) {
      messages.add(partial.toByteArray());
      partial.reset();
    }
    ws.request(1);
    return null;
  }

  @Override
  public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
    partialText.append(data);
    if (last) {
      messages.add(partialText.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      partialText.setLength(0);
    }
    ws.request(1);
    return null;
  }

  @Override
  public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
    closed.complete(statusCode);
    return null;
  }

  @Override
  public void onError(WebSocket ws, Throwable error) {
    closed.completeExceptionally(error);
  }

  void abort() {
    socket.abort();
  }
}
