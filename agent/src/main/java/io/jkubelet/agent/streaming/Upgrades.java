package io.jkubelet.agent.streaming;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.spdy.SpdyFrameCodec;
import io.netty.handler.codec.spdy.SpdyVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The HTTP side of the streaming protocols: which one a request asks for, the SPDY protocol
 * negotiation of upstream's {@code httpstream.Handshake} (with its messages), the {@code 101}
 * answers, and the pipeline surgery that hands the connection from the HTTP codec to the SPDY codec
 * or the WebSocket one.
 *
 * <p>NOTE: every method here runs on the connection's event loop.
 */
final class Upgrades {
  static final String PROTOCOL_HEADER = "X-Stream-Protocol-Version";
  static final String ACCEPTED_HEADER = "X-Accepted-Stream-Protocol-Versions";

  private Upgrades() {}

  /** Upstream's {@code wsstream.IsWebSocketRequest}. */
  static boolean isWebSocket(HttpRequest req) {
    String upgrade = req.headers().get(HttpHeaderNames.UPGRADE, "");
    String connection = req.headers().get(HttpHeaderNames.CONNECTION, "").toLowerCase(Locale.ROOT);
    return upgrade.equalsIgnoreCase("websocket")
        && connection.matches("(^|.*,\\s*)upgrade($|\\s*,.*)");
  }

  /** The outcome of the SPDY protocol negotiation: the protocol, or the refusal to send. */
  record Negotiation(String protocol, FullHttpResponse refusal) {}

  /**
   * Picks the first protocol of the client's {@code X-Stream-Protocol-Version} values that the
   * server supports; refuses with 400 (no header), 403 (no common protocol, with the accepted ones
   * in {@code X-Accepted-Stream-Protocol-Versions}) or 400 (not a SPDY upgrade request).
   */
  static Negotiation negotiate(HttpRequest req, List<String> server) {
    List<String> client = new ArrayList<>();
    for (String value : req.headers().getAll(PROTOCOL_HEADER)) {
      for (String p : value.split(",")) {
        if (!p.trim().isEmpty()) {
          client.add(p.trim());
        }
      }
    }
    if (client.isEmpty()) {
      return new Negotiation(
          null,
          text(
              HttpResponseStatus.BAD_REQUEST,
              "unable to upgrade: " + PROTOCOL_HEADER + " is required"));
    }
    String chosen = client.stream().filter(server::contains).findFirst().orElse(null);
    if (chosen == null) {
      FullHttpResponse refusal =
          text(
              HttpResponseStatus.FORBIDDEN,
              "unable to upgrade: unable to negotiate protocol: client supports "
                  + goList(client)
                  + ", server accepts "
                  + goList(server));
      server.forEach(p -> refusal.headers().add(ACCEPTED_HEADER, p));
      return new Negotiation(null, refusal);
    }
    String connection = req.headers().get(HttpHeaderNames.CONNECTION, "").toLowerCase(Locale.ROOT);
    String upgrade = req.headers().get(HttpHeaderNames.UPGRADE, "").toLowerCase(Locale.ROOT);
    if (!connection.contains("upgrade") || !upgrade.contains("spdy/3.1")) {
      return new Negotiation(
          null,
          text(
              HttpResponseStatus.BAD_REQUEST,
              "unable to upgrade: missing upgrade headers in request"));
    }
    return new Negotiation(chosen, null);
  }

  private static String goList(List<String> items) {
    return "[" + String.join(" ", items) + "]";
  }

  /** A plain-text answer, as Go's {@code http.Error}. */
  static FullHttpResponse text(HttpResponseStatus status, String message) {
    FullHttpResponse r =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            status,
            Unpooled.copiedBuffer(message + "\n", StandardCharsets.UTF_8));
    r.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
        .set("X-Content-Type-Options", "nosniff")
        .setInt(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
    return r;
  }

  /** Sends a refusal and closes the connection after it. */
  static void refuse(ChannelHandlerContext ctx, FullHttpResponse response) {
    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }

  /**
   * Negotiates the protocol from {@code server}'s list, then upgrades to SPDY with the session that
   * {@code session} makes for it; answers the refusal instead when the two sides share none.
   * Returns the session, or null when refused.
   */
  static <A extends SpdyConnection.Acceptor> A toSpdy(
      ChannelHandlerContext ctx,
      HttpRequest req,
      List<String> server,
      Function<String, A> session) {
    Negotiation n = negotiate(req, server);
    if (n.refusal() != null) {
      refuse(ctx, n.refusal());
      return null;
    }
    A acceptor = session.apply(n.protocol());
    SpdyConnection connection = new SpdyConnection(acceptor);
    acceptor.attachTo(connection);
    toSpdy(ctx, n.protocol(), connection);
    return acceptor;
  }

  /**
   * Answers {@code 101} with {@code Upgrade: SPDY/3.1} and the negotiated protocol, then replaces
   * the HTTP codec, and every handler after it, with Netty's SPDY/3.1 frame codec and {@code
   * handler}, with a {@link ReadGate} before the codec. Bytes the client sent after the request go
   * to the SPDY codec.
   */
  private static void toSpdy(ChannelHandlerContext ctx, String protocol, ChannelHandler handler) {
    FullHttpResponse ok =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SWITCHING_PROTOCOLS);
    ok.headers()
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE)
        .set(HttpHeaderNames.UPGRADE, "SPDY/3.1")
        .set(PROTOCOL_HEADER, protocol);
    ChannelPipeline p = ctx.pipeline();
    String codec = httpCodec(p);
    List<String> after = namesAfter(p, codec);
    p.addAfter(codec, "spdy-codec", new SpdyFrameCodec(SpdyVersion.SPDY_3_1));
    p.addBefore("spdy-codec", "spdy-read-gate", ReadGate.INSTANCE);
    // Written from just after the HTTP codec, on the event loop: encoded at once, before the codec
    // goes, and seen by no handler of the HTTP layer after it.
    p.context("spdy-codec").writeAndFlush(ok);
    p.addAfter("spdy-codec", "spdy-streams", handler);
    after.forEach(name -> removeQuietly(p, name));
    List<String> codecs = httpCodecs(p);
    codecs.forEach(name -> removeQuietly(p, name)); // hands leftover bytes to the SPDY codec
  }

  /** The name of the first HTTP codec handler in the pipeline. */
  private static String httpCodec(ChannelPipeline p) {
    List<String> names = httpCodecs(p);
    if (names.isEmpty()) {
      throw new IllegalStateException("no HTTP codec in the pipeline");
    }
    return names.get(names.size() - 1);
  }

  private static List<String> httpCodecs(ChannelPipeline p) {
    List<String> names = new ArrayList<>();
    for (Map.Entry<String, ChannelHandler> e : p) {
      ChannelHandler h = e.getValue();
      if (h instanceof HttpServerCodec
          || h instanceof HttpRequestDecoder
          || h instanceof HttpResponseEncoder) {
        names.add(e.getKey());
      }
    }
    return names;
  }

  /** The handlers after {@code name}, in order. */
  static List<String> namesAfter(ChannelPipeline p, String name) {
    List<String> names = new ArrayList<>();
    boolean seen = false;
    for (Map.Entry<String, ChannelHandler> e : p) {
      if (seen) {
        names.add(e.getKey());
      }
      seen |= e.getKey().equals(name);
    }
    return names;
  }

  static void removeQuietly(ChannelPipeline p, String name) {
    if (p.get(name) != null) {
      p.remove(name);
    }
  }
}
