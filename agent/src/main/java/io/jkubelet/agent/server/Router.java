package io.jkubelet.agent.server;

import io.jkubelet.agent.server.auth.Attributes;
import io.jkubelet.agent.server.auth.Authentication;
import io.jkubelet.agent.server.auth.Authenticator;
import io.jkubelet.agent.server.auth.Authorizer;
import io.jkubelet.agent.server.auth.Credentials;
import io.jkubelet.agent.server.auth.Subject;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The auth filter and the dispatch to routes. Shared by every channel: it keeps no per-channel
 * state. Reading stops while a request is being authenticated (off the event loop), so a client
 * that pipelines cannot overtake its own request.
 */
@ChannelHandler.Sharable
final class Router extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger log = LoggerFactory.getLogger(Router.class);

  private final List<Route> routes;
  private final Authenticator authenticator;
  private final Authorizer authorizer;
  private final String nodeName;
  private final ExecutorService executor;

  Router(
      List<Route> routes,
      Authenticator authenticator,
      Authorizer authorizer,
      String nodeName,
      ExecutorService executor) {
    super(false);
    this.routes = routes;
    this.authenticator = authenticator;
    this.authorizer = authorizer;
    this.nodeName = nodeName;
    this.executor = executor;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
    if (!req.decoderResult().isSuccess()) {
      Responses.text(ctx, req, HttpResponseStatus.BAD_REQUEST, "400 Bad Request");
      req.release();
      return;
    }
    Credentials creds =
        new Credentials(
            peerChain(ctx), Credentials.bearer(req.headers().get(HttpHeaderNames.AUTHORIZATION)));
    ctx.channel().config().setAutoRead(false);
    try {
      executor.execute(() -> authenticateThenRoute(ctx, req, creds));
    } catch (RejectedExecutionException e) {
      req.release();
      ctx.close();
    }
  }

  private void authenticateThenRoute(
      ChannelHandlerContext ctx, FullHttpRequest req, Credentials creds) {
    String path = new QueryStringDecoder(req.uri()).path();
    Attributes attrs = null;
    try {
      Subject subject =
          switch (authenticator.authenticate(creds)) {
            case Authentication.Authenticated a -> a.subject();
            case Authentication.Refused r -> {
              log.debug("kubelet server: {} {} unauthorized: {}", req.method(), path, r.reason());
              yield null;
            }
          };
      if (subject == null) {
        finish(ctx, req, HttpResponseStatus.UNAUTHORIZED, "Unauthorized");
        return;
      }
      attrs = Attributes.of(req.method().name(), path, nodeName);
      if (!authorizer.allowed(subject, attrs)) {
        String msg = describe("Forbidden", subject, attrs);
        log.debug("kubelet server: {}", msg);
        finish(ctx, req, HttpResponseStatus.FORBIDDEN, msg);
        return;
      }
      Route route = find(path);
      if (route != null && route.blocking()) {
        route(ctx, req, route, path, subject);
      } else {
        ctx.executor().execute(() -> route(ctx, req, route, path, subject));
      }
    } catch (RuntimeException e) {
      String msg =
          attrs == null
              ? "Unauthorized"
              : describe("Authorization error", new Subject("", List.of()), attrs);
      log.warn(
          "kubelet server: cannot authenticate or authorize {} {}: {}",
          req.method(),
          path,
          e.toString());
      finish(
          ctx,
          req,
          attrs == null
              ? HttpResponseStatus.UNAUTHORIZED
              : HttpResponseStatus.INTERNAL_SERVER_ERROR,
          msg);
    }
  }

  private static String describe(String what, Subject s, Attributes a) {
    return what
        + " (user="
        + s.name()
        + ", verb="
        + a.verb()
        + ", resource="
        + a.resource()
        + ", subresource="
        + a.subresource()
        + ")";
  }

  private static void finish(
      ChannelHandlerContext ctx, FullHttpRequest req, HttpResponseStatus status, String body) {
    ctx.executor()
        .execute(
            () -> {
              try {
                ctx.channel().config().setAutoRead(true);
                Responses.text(ctx, req, status, body);
              } finally {
                req.release();
              }
            });
  }

  /** The first route that serves the path, or null. */
  private Route find(String path) {
    for (Route r : routes) {
      if (r.matches(path)) {
        return r;
      }
    }
    return null;
  }

  /** Hands the request to its route (null: a 404), on the loop or, for a blocking one, here. */
  private static void route(
      ChannelHandlerContext ctx, FullHttpRequest req, Route route, String path, Subject subject) {
    ctx.channel().config().setAutoRead(true);
    try {
      if (route == null) {
        Responses.notFound(ctx, req);
      } else {
        route.handle(ctx, req, subject);
      }
    } catch (RuntimeException e) {
      log.error("kubelet server: {} {} failed", req.method(), path, e);
      Responses.text(ctx, req, HttpResponseStatus.INTERNAL_SERVER_ERROR, "Internal Server Error");
      ctx.close();
    } finally {
      req.release();
    }
  }

  private static List<X509Certificate> peerChain(ChannelHandlerContext ctx) {
    SslHandler ssl = ctx.pipeline().get(SslHandler.class);
    if (ssl == null) {
      return List.of();
    }
    try {
      List<X509Certificate> out = new ArrayList<>();
      for (Certificate c : ssl.engine().getSession().getPeerCertificates()) {
        if (c instanceof X509Certificate x) {
          out.add(x);
        }
      }
      return out;
    } catch (SSLPeerUnverifiedException e) {
      return List.of();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug(
        "kubelet server: connection from {} failed: {}",
        ctx.channel().remoteAddress(),
        cause.toString());
    ctx.close();
  }
}
