package io.jkubelet.agent.streaming;

import io.jkubelet.agent.runtime.StreamIo;
import io.jkubelet.agent.runtime.TerminalSize;
import io.netty.channel.Channel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
final class WebSocketRemoteCommand extends WebSocketSession implements RemoteCommandStreams {
  private static final Logger log = LoggerFactory.getLogger(WebSocketRemoteCommand.class);

  static final int STDIN = 0;
  static final int STDOUT = 1;
  static final int STDERR = 2;
  static final int ERROR = 3;
  static final int RESIZE = 4;

  private final StreamOptions options;
  private final boolean v4;
  private final InboundBytes stdin;
  private final InboundBytes resize;
  private final FrameOutput stdout;
  private final FrameOutput stderr;
  private final FrameOutput error;

  WebSocketRemoteCommand(Channel channel, StreamOptions options, String protocol) {
    super(channel, protocol, "connection");
    this.options = options;
    this.v4 = protocol != null && protocol.startsWith("v4.");
    ReadPauses pause = new ReadPauses(channel);
    this.stdin = options.stdin() ? new InboundBytes(pause) : null;
    this.resize = new InboundBytes(pause);
    this.stdout = options.stdout() ? output(STDOUT) : null;
    this.stderr = options.stderr() ? output(STDERR) : null;
    this.error = output(ERROR);
  }

  /** The empty message that tells the client its streams are up; see the class comment. */
  void announce() {
    int lowest = options.stdout() ? STDOUT : options.stderr() ? STDERR : ERROR;
    channel.writeAndFlush(WebSocketChannels.frame(lowest, new byte[0], base64));
  }

  @Override
  void receive(WebSocketChannels.Message m) {
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
  void endInputs() {
    if (stdin != null) {
      stdin.end();
    }
    resize.end();
  }

  @Override
  public StreamIo io() {
    return new StreamIo(stdin, stdout, stderr, options.tty());
  }

  @Override
  public void onResize(Consumer<TerminalSize> listener) {
    ResizeEvents.follow(resize, listener);
  }

  @Override
  public ClientGone gone() {
    return gone;
  }

  @Override
  public void finish(ExecStatus status) {
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
    close();
  }
}
