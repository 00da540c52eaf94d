package io.jkubelet.agent.streaming;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an exec, attach or port-forward over a WebSocket shares, as upstream's {@code
 * wsstream.Conn}: control frames are answered here (a close closes, a ping gets its pong); each
 * data message is decoded by the channel protocol (binary or base64) and handed to {@link
 * #receive}; frames go out through {@link #output}; the server ends the session with a normal
 * close.
 *
 * <p>Thread-safe as far as this class goes: frames arrive on the connection's event loop.
 */
abstract class WebSocketSession extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(WebSocketSession.class);

  final Channel channel;
  final boolean base64;
  final ClientGone gone = new ClientGone();
  private final String kind;

  /** {@code kind} names the session in the log: "connection" or "port-forward". */
  WebSocketSession(Channel channel, String protocol, String kind) {
    this.channel = channel;
    this.base64 = WebSocketChannels.isBase64(protocol);
    this.kind = kind;
  }

  /** One decoded message from the client, on the event loop. */
  abstract void receive(WebSocketChannels.Message message);

  /** The client is gone: ends what the session reads, before {@link #gone} happens. */
  abstract void endInputs();

  /** The output stream of channel {@code number}. */
  final FrameOutput output(int number) {
    return new FrameOutput(
        channel,
        (alloc, b, off, len) -> WebSocketChannels.frame(alloc, number, b, off, len, base64));
  }

  /** Sends a normal close, then closes the connection. */
  final void close() {
    if (channel.isActive()) {
      channel
          .writeAndFlush(new CloseWebSocketFrame(1000, ""))
          .addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  public final void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      switch (msg) {
        case CloseWebSocketFrame close -> ctx.close();
        case PingWebSocketFrame ping ->
            ctx.writeAndFlush(new PongWebSocketFrame(ping.content().retain()));
        case PongWebSocketFrame pong -> {}
        case WebSocketFrame frame -> decode(frame);
        default ->
            log.debug("Streaming: ignored {} on a WebSocket", msg.getClass().getSimpleName());
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void decode(WebSocketFrame frame) {
    WebSocketChannels.Message m;
    try {
      m = WebSocketChannels.read(frame, base64);
    } catch (IllegalArgumentException e) {
      log.debug("Streaming: a malformed base64 WebSocket message was dropped: {}", e.getMessage());
      return;
    }
    if (m != null) {
      receive(m);
    }
  }

  @Override
  public final void channelInactive(ChannelHandlerContext ctx) {
    endInputs();
    gone.happened();
    ctx.fireChannelInactive();
  }

  @Override
  public final void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("Streaming: WebSocket {} failed: {}", kind, cause.toString());
    ctx.close();
  }
}
