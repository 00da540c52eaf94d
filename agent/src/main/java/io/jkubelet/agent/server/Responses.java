package io.jkubelet.agent.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/** Full responses for routes: status, content type and body, keep-alive as the request asked. */
public final class Responses {
  private Responses() {}

  /** Sends a text body ({@code text/plain; charset=utf-8}). */
  public static void text(
      ChannelHandlerContext ctx, HttpRequest req, HttpResponseStatus status, String body) {
    send(ctx, req, status, "text/plain; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
  }

  /** Sends 404 with Go's default body, as upstream's mux answers a path it does not serve. */
  public static void notFound(ChannelHandlerContext ctx, HttpRequest req) {
    notFound(ctx, req, "404 page not found");
  }

  /** Sends 404 with a text body saying what was not found. */
  public static void notFound(ChannelHandlerContext ctx, HttpRequest req, String body) {
    text(ctx, req, HttpResponseStatus.NOT_FOUND, body);
  }

  /** Sends a JSON body. */
  public static void json(
      ChannelHandlerContext ctx, HttpRequest req, HttpResponseStatus status, String body) {
    send(ctx, req, status, "application/json", body.getBytes(StandardCharsets.UTF_8));
  }

  /** Sends a body; closes the connection after it unless the request is keep-alive. */
  public static void send(
      ChannelHandlerContext ctx,
      HttpRequest req,
      HttpResponseStatus status,
      String contentType,
      byte[] body) {
    FullHttpResponse res =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
    res.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    res.headers().set("X-Content-Type-Options", "nosniff");
    HttpUtil.setContentLength(res, body.length);
    boolean keepAlive = HttpUtil.isKeepAlive(req);
    HttpUtil.setKeepAlive(res, keepAlive);
    var f = ctx.channel().writeAndFlush(res);
    if (!keepAlive) {
      f.addListener(ChannelFutureListener.CLOSE);
    }
  }
}
