package io.jkubelet.agent.server;

import io.jkubelet.agent.server.auth.Subject;
import io.jkubelet.config.Records;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Route} that serves one document on GET of exactly one path: {@code /metrics}, {@code
 * /metrics/probes}, {@code /metrics/resource}, {@code /stats/summary}. The document is made on
 * {@code executor}, never on the event loop (the summary reads files). A document that fails is a
 * 500 with a generic message, logged here.
 *
 * @param executor where documents are made, e.g. a virtual thread per request
 */
public record DocumentRoute(String path, ReadOnlyServer.Resource document, Executor executor)
    implements Route {
  private static final Logger log = LoggerFactory.getLogger(DocumentRoute.class);

  public DocumentRoute {
    Records.requireNonNull(DocumentRoute.class, path, document, executor);
  }

  @Override
  public boolean matches(String p) {
    return path.equals(p);
  }

  @Override
  public void handle(ChannelHandlerContext ctx, FullHttpRequest request, Subject subject) {
    if (!HttpMethod.GET.equals(request.method())) {
      Responses.text(ctx, request, HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed\n");
      return;
    }
    FullHttpRequest req = request.retain(); // the server releases its own count after handle
    executor.execute(
        () -> {
          try {
            byte[] body = document.body().get();
            Responses.send(ctx, req, HttpResponseStatus.OK, document.contentType(), body);
          } catch (RuntimeException e) {
            log.warn("kubelet API: {} failed: {}", path, e.toString());
            Responses.text(ctx, req, HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error\n");
          } finally {
            req.release();
          }
        });
  }
}
