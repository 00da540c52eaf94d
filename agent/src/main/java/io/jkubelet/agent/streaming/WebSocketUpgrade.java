package io.jkubelet.agent.streaming;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WebSocket handshake with Netty's {@link WebSocketServerHandshaker} (which picks the first
 * subprotocol the client offers that the server supports, as upstream's {@code wsstream} does), and
 * the pipeline after it: the WebSocket codec, a frame aggregator (so that fragmented messages
 * arrive whole) and the session's handler, in place of the HTTP codec and every handler after it.
 *
 * <p>NOTE: runs on the connection's event loop.
 */
final class WebSocketUpgrade {
  private static final Logger log = LoggerFactory.getLogger(WebSocketUpgrade.class);
  private static final int MAX_MESSAGE = 1 << 20;

  private WebSocketUpgrade() {}

  static void remoteCommand(
      ChannelHandlerContext ctx,
      HttpRequest req,
      StreamOptions options,
      Consumer<WebSocketRemoteCommand> run) {
    handshake(
        ctx,
        req,
        WebSocketChannels.REMOTE_COMMAND,
        protocol -> {
          WebSocketRemoteCommand handler =
              new WebSocketRemoteCommand(ctx.channel(), options, protocol);
          return new Installed(
              handler,
              () -> {
                handler.announce();
                run.accept(handler);
              });
        });
  }

  static void portForward(
      ChannelHandlerContext ctx, HttpRequest req, PortForwardTarget target, List<Integer> ports) {
    handshake(
        ctx,
        req,
        WebSocketChannels.PORT_FORWARD,
        protocol -> {
          WebSocketPortForward handler =
              new WebSocketPortForward(ctx.channel(), target, ports, protocol);
          return new Installed(handler, handler::start);
        });
  }

  /** The session's handler and what to do once it is in place. */
  record Installed(ChannelHandler handler, Runnable start) {}

  private static void handshake(
      ChannelHandlerContext ctx,
      HttpRequest req,
      List<String> protocols,
      Function<String, Installed> session) {
    String url = "wss://" + req.headers().get(HttpHeaderNames.HOST, "localhost") + req.uri();
    WebSocketServerHandshaker handshaker =
        new WebSocketServerHandshakerFactory(url, String.join(",", protocols), false, MAX_MESSAGE)
            .newHandshaker(req);
    if (handshaker == null) {
      WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(ctx.channel());
      return;
    }
    ChannelPipeline p = ctx.pipeline();
    handshaker
        .handshake(ctx.channel(), (FullHttpRequest) req)
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                log.info("Streaming: WebSocket handshake failed: {}", f.cause().toString());
                ctx.close();
                return;
              }
              String protocol = handshaker.selectedSubprotocol();
              Installed installed = session.apply(protocol == null ? "" : protocol);
              List<String> after = Upgrades.namesAfter(p, "wsdecoder");
              p.addAfter("wsdecoder", "ws-aggregator", new WebSocketFrameAggregator(MAX_MESSAGE));
              p.addAfter("ws-aggregator", "ws-streams", installed.handler());
              after.forEach(name -> Upgrades.removeQuietly(p, name));
              installed.start().run();
            });
  }
}
