package io.jkubelet.agent.streaming;

import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.StreamHandle;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Port-forward over a WebSocket ({@code v4.channel.k8s.io} or its base64 twin), as upstream's
 * {@code handleWebSocketStreams}: the ports come in the query ({@code ?port=80&port=443} or {@code
 * ?port=80,443}); each port {@code i} has a data channel {@code 2i} (both ways) and an error
 * channel {@code 2i+1}; the first message on each carries the port as two little-endian bytes. Each
 * port gets one connection; the WebSocket closes when all have ended.
 *
 * <p>Thread-safe: frames arrive on the event loop; each forward runs on a virtual thread.
 */
final class WebSocketPortForward extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(WebSocketPortForward.class);

  private final Channel channel;
  private final PortForwardTarget target;
  private final List<Integer> ports;
  private final boolean base64;
  private final List<InboundBytes> inputs = new ArrayList<>();
  private final ClientGone gone = new ClientGone();
  private final AtomicInteger running = new AtomicInteger();

  WebSocketPortForward(
      Channel channel, PortForwardTarget target, List<Integer> ports, String protocol) {
    this.channel = channel;
    this.target = target;
    this.ports = List.copyOf(ports);
    this.base64 = WebSocketChannels.isBase64(protocol);
    for (int i = 0; i < ports.size(); i++) {
      inputs.add(new InboundBytes(p -> channel.config().setAutoRead(!p)));
    }
  }

  /** Parses {@code port} query values (each may be a comma list), as upstream's NewV4Options. */
  static List<Integer> parsePorts(List<String> values) {
    if (values == null || values.isEmpty()) {
      throw new IllegalArgumentException("query parameter \"port\" is required");
    }
    List<Integer> ports = new ArrayList<>();
    for (String value : values) {
      if (value.isEmpty()) {
        throw new IllegalArgumentException("query parameter \"port\" cannot be empty");
      }
      for (String p : value.split(",")) {
        int port;
        try {
          port = Integer.parseInt(p);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("unable to parse \"" + value + "\" as a port: " + e);
        }
        if (port < 1 || port > 65535) {
          throw new IllegalArgumentException("port \"" + value + "\" must be > 0");
        }
        ports.add(port);
      }
    }
    return ports;
  }

  /** Announces the ports and starts one forward per port. */
  void start() {
    running.set(ports.size());
    for (int i = 0; i < ports.size(); i++) {
      int index = i;
      Thread.ofVirtual().name("port-forward").start(() -> forward(index));
    }
    if (ports.isEmpty()) {
      close();
    }
  }

  private void forward(int index) {
    int port = ports.get(index);
    FrameOutput data = output(2 * index);
    FrameOutput error = output(2 * index + 1);
    byte[] portBytes = {(byte) port, (byte) (port >> 8)};
    StreamHandle handle = null;
    try {
      data.write(portBytes);
      error.write(portBytes);
      handle = target.forward(port, inputs.get(index), data);
      StreamHandle h = handle;
      gone.then(() -> Thread.ofVirtual().name("port-forward-close").start(h::close));
      handle.await();
    } catch (RuntimeError e) {
      String msg =
          "error forwarding port "
              + port
              + " to pod "
              + target.sandboxId()
              + ", uid : "
              + e.getMessage();
      log.info("Streaming: {}", msg);
      try {
        error.write(msg.getBytes(StandardCharsets.UTF_8));
      } catch (IOException ignored) {
        // the client is gone
      }
    } catch (IOException e) {
      log.debug("Streaming: port-forward client went away: {}", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (handle != null) {
        handle.close();
      }
      inputs.get(index).discard();
      if (running.decrementAndGet() == 0) {
        close();
      }
    }
  }

  private FrameOutput output(int number) {
    return new FrameOutput(channel, bytes -> WebSocketChannels.frame(number, bytes, base64));
  }

  private void close() {
    if (channel.isActive()) {
      channel
          .writeAndFlush(new CloseWebSocketFrame(1000, ""))
          .addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      switch (msg) {
        case CloseWebSocketFrame close -> ctx.close();
        case PingWebSocketFrame ping ->
            ctx.writeAndFlush(new PongWebSocketFrame(ping.content().retain()));
        case PongWebSocketFrame pong -> {}
        case WebSocketFrame frame -> receive(frame);
        default -> {}
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void receive(WebSocketFrame frame) {
    WebSocketChannels.Message m;
    try {
      m = WebSocketChannels.read(frame, base64);
    } catch (IllegalArgumentException e) {
      return;
    }
    if (m != null && m.channel() % 2 == 0 && m.channel() / 2 < inputs.size()) {
      inputs.get(m.channel() / 2).offer(m.data());
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    inputs.forEach(InboundBytes::end);
    gone.happened();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("Streaming: WebSocket port-forward failed: {}", cause.toString());
    ctx.close();
  }
}
