package io.jkubelet.agent.server;

import io.jkubelet.agent.server.auth.Subject;
import io.jkubelet.config.Records;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Route} that serves one document on GET of exactly one path: {@code /metrics}, {@code
 * /metrics/probes}, {@code /metrics/resource}, {@code /stats/summary}. A {@link #blocking} route:
 * the document is made on the thread that authorized the request, never on the event loop (the
 * summary reads files). A document that fails is a 500 with a generic message, logged here.
 */
public record DocumentRoute(String path, ReadOnlyServer.Resource document) implements Route {
  private static final Logger log = LoggerFactory.getLogger(DocumentRoute.class);

  public DocumentRoute {
    Records.requireNonNull(DocumentRoute.class, path, document);
  }

  @Override
  public boolean matches(String p) {
    return path.equals(p);
  }

  @Override
  public boolean blocking() {
    return true;
  }

  @Override
  public void handle(ChannelHandlerContext ctx, FullHttpRequest request, Subject subject) {
    if (!HttpMethod.GET.equals(request.method())) {
      Responses.text(ctx, request, HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed\n");
      return;
    }
    try {
      byte[] body = document.body().get();
      Responses.send(ctx, request, HttpResponseStatus.OK, document.contentType(), body);
    } catch (RuntimeException e) {
      log.warn("kubelet API: {} failed: {}", path, e.toString());
      Responses.text(ctx, request, HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error\n");
    }
  }
}
