package io.jkubelet.agent.streaming;

import io.jkubelet.agent.runtime.TerminalSize;
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
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exec and attach over a WebSocket, as upstream's {@code createWebSocketStreams}: channel 0 is
 * stdin, 1 stdout, 2 stderr, 3 the error channel (the status), 4 resize; channels the client did
 * not ask for are ignored. Right after the handshake an empty message goes out on the lowest
 * channel the server writes (stdout, else stderr, else the error channel), to tell the client the
 * streams are up. The v4 protocols send the status as {@code metav1.Status} JSON, the older ones
 * only a failure's message.
 *
 * <p>Inbound frames arrive on the connection's event loop and go to {@link InboundBytes}; the
 * runtime's threads write through {@link FrameOutput}. Thread-safe.
 */
final class WebSocketRemoteCommand extends ChannelInboundHandlerAdapter
    implements RemoteCommandStreams {
  private static final Logger log = LoggerFactory.getLogger(WebSocketRemoteCommand.class);

  static final int STDIN = 0;
  static final int STDOUT = 1;
  static final int STDERR = 2;
  static final int ERROR = 3;
  static final int RESIZE = 4;

  private final Channel channel;
  private final StreamOptions options;
  private final boolean base64;
  private final boolean v4;
  private final InboundBytes stdin;
  private final InboundBytes resize;
  private final FrameOutput stdout;
  private final FrameOutput stderr;
  private final FrameOutput error;
  private final ClientGone gone = new ClientGone();
  private final AtomicBoolean finished = new AtomicBoolean();

  WebSocketRemoteCommand(Channel channel, StreamOptions options, String protocol) {
    this.channel = channel;
    this.options = options;
    this.base64 = WebSocketChannels.isBase64(protocol);
    this.v4 = protocol != null && protocol.startsWith("v4.");
    Consumer<Boolean> pause = p -> channel.config().setAutoRead(!p);
    this.stdin = options.stdin() ? new InboundBytes(pause) : null;
    this.resize = new InboundBytes(pause);
    this.stdout = options.stdout() ? output(STDOUT) : null;
    this.stderr = options.stderr() ? output(STDERR) : null;
    this.error = output(ERROR);
  }

  private FrameOutput output(int number) {
    return new FrameOutput(channel, data -> WebSocketChannels.frame(number, data, base64));
  }

  /** The empty message that tells the client its streams are up; see the class comment. */
  void announce() {
    int lowest = options.stdout() ? STDOUT : options.stderr() ? STDERR : ERROR;
    channel.writeAndFlush(WebSocketChannels.frame(lowest, new byte[0], base64));
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
        default ->
            log.debug("Streaming: ignored {} on a WebSocket", msg.getClass().getSimpleName());
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
      log.debug("Streaming: a malformed base64 WebSocket message was dropped: {}", e.getMessage());
      return;
    }
    if (m == null) {
      return;
    }
    switch (m.channel()) {
      case STDIN -> {
        if (stdin != null) {
          stdin.offer(m.data());
        }
      }
      case RESIZE -> resize.offer(m.data());
      default -> log.debug("Streaming: ignored a message for channel {}", m.channel());
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (stdin != null) {
      stdin.end();
    }
    resize.end();
    gone.happened();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("Streaming: WebSocket connection failed: {}", cause.toString());
    ctx.close();
  }

  @Override
  public InputStream stdin() {
    return stdin;
  }

  @Override
  public OutputStream stdout() {
    return stdout;
  }

  @Override
  public OutputStream stderr() {
    return stderr;
  }

  @Override
  public boolean tty() {
    return options.tty();
  }

  @Override
  public void onResize(Consumer<TerminalSize> listener) {
    ResizeEvents.follow(resize, listener);
  }

  @Override
  public void onClientGone(Runnable action) {
    gone.then(action);
  }

  @Override
  public void finish(ExecStatus status) {
    if (!finished.compareAndSet(false, true)) {
      return;
    }
    try {
      if (v4) {
        error.write(status.json());
      } else if (!status.success()) {
        error.write(status.text().getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      log.debug("Streaming: the status could not be sent: {}", e.getMessage());
    }
    if (stdin != null) {
      stdin.discard();
    }
    resize.end();
    for (FrameOutput out : new FrameOutput[] {stdout, stderr, error}) {
      if (out != null) {
        out.disable();
      }
    }
    if (channel.isActive()) {
      channel
          .writeAndFlush(new CloseWebSocketFrame(1000, ""))
          .addListener(ChannelFutureListener.CLOSE);
    }
  }
}
