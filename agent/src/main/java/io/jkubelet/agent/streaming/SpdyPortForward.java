package io.jkubelet.agent.streaming;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Port-forward over SPDY ({@code portforward.k8s.io}), as upstream's {@code httpStreamHandler}: the
 * client opens a pair of streams per forwarded connection, {@code streamType: error} and {@code
 * streamType: data}, with the same {@code requestID} and {@code port} headers; once both are up,
 * the data stream is joined to the port in the pod, and a failure is written on the error stream. A
 * stream with a missing or bad header is refused. Many pairs share one connection.
 *
 * <p>Thread-safe: the acceptor methods run on the event loop; each forward runs on a virtual thread
 * of its own and is closed when the client goes away.
 */
final class SpdyPortForward implements SpdyConnection.Acceptor {
  private static final Logger log = LoggerFactory.getLogger(SpdyPortForward.class);

  /** The protocol of {@code X-Stream-Protocol-Version}. */
  static final String PROTOCOL = "portforward.k8s.io";

  private final PortForwardTarget target;
  private final Map<String, Pair> pairs = new ConcurrentHashMap<>();
  private final ClientGone gone = new ClientGone();
  private volatile SpdyConnection connection;

  SpdyPortForward(PortForwardTarget target) {
    this.target = target;
  }

  @Override
  public void attachTo(SpdyConnection connection) {
    this.connection = connection;
  }

  /** One forwarded connection's two streams. */
  private static final class Pair {
    SpdyStream data;
    SpdyStream error;
  }

  @Override
  public String accept(SpdyStream stream) {
    String port = stream.header("port");
    if (port.isEmpty()) {
      return "\"port\" header is required";
    }
    int p;
    try {
      p = Integer.parseInt(port);
    } catch (NumberFormatException e) {
      return "unable to parse \"" + port + "\" as a port: " + e.getMessage();
    }
    if (p < 1 || p > 65535) {
      return "port \"" + port + "\" must be > 0";
    }
    String type = stream.header("streamType");
    if (type.isEmpty()) {
      return "\"streamType\" header is required";
    }
    if (!type.equals("error") && !type.equals("data")) {
      return "invalid stream type \"" + type + "\"";
    }
    return null;
  }

  @Override
  public void replied(SpdyStream stream) {
    String type = stream.header("streamType");
    Pair pair = pairs.computeIfAbsent(requestId(stream, type), k -> new Pair());
    if (type.equals("data") ? pair.data != null : pair.error != null) {
      String msg = "error processing stream: " + type + " stream already assigned";
      log.info("Streaming: {}", msg);
      stream.reset();
      return;
    }
    if (type.equals("data")) {
      pair.data = stream;
    } else {
      pair.error = stream;
    }
    if (pair.data != null && pair.error != null) {
      pairs.values().remove(pair);
      Thread.ofVirtual().name("port-forward").start(() -> forward(pair));
    }
  }

  /** The {@code requestID} header, or upstream's fallback from the stream id. */
  private static String requestId(SpdyStream stream, String type) {
    String id = stream.header("requestID");
    if (!id.isEmpty()) {
      return id;
    }
    return Integer.toString(type.equals("error") ? stream.id() : stream.id() - 2);
  }

  private void forward(Pair pair) {
    try {
      target.serve(
          Integer.parseInt(pair.data.header("port")),
          pair.data.input(),
          pair.data.output(),
          gone,
          pair.error::writeAndFinish);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      pair.data.finish();
      pair.error.finish();
      SpdyConnection c = connection;
      if (c != null) {
        c.forget(pair.data);
        c.forget(pair.error);
      }
    }
  }

  @Override
  public void clientGone() {
    gone.happened();
  }
}
