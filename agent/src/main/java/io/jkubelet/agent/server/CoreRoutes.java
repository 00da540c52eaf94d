package io.jkubelet.agent.server;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.server.auth.Subject;
import io.jkubelet.agent.util.ApiSerialization;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Upstream's default handlers: {@code /healthz} (every check), {@code /healthz/ping} (always ok),
 * {@code /healthz/<check>} (e.g. {@code syncloop}), {@code /pods} (a v1 PodList with the status
 * jkubelet computed) and {@code /configz} (the configuration in effect). They compute from memory,
 * so they run on the event loop.
 */
public final class CoreRoutes implements Route {
  private final Healthz healthz;
  private final Supplier<List<Pod>> pods;
  private final Supplier<String> configz;

  /**
   * @param healthz the checks
   * @param pods the node's pods with their status; null: no {@code /pods}
   * @param configz the {@code /configz} JSON; null: no {@code /configz}
   */
  public CoreRoutes(Healthz healthz, Supplier<List<Pod>> pods, Supplier<String> configz) {
    this.healthz = healthz;
    this.pods = pods;
    this.configz = configz;
  }

  @Override
  public boolean matches(String path) {
    return path.equals("/healthz")
        || path.startsWith("/healthz/")
        || (pods != null && (path.equals("/pods") || path.equals("/pods/")))
        || (configz != null && path.equals("/configz"));
  }

  @Override
  public void handle(ChannelHandlerContext ctx, FullHttpRequest req, Subject subject) {
    String path = new io.netty.handler.codec.http.QueryStringDecoder(req.uri()).path();
    if (!req.method().equals(HttpMethod.GET) && !req.method().equals(HttpMethod.HEAD)) {
      Responses.text(ctx, req, HttpResponseStatus.METHOD_NOT_ALLOWED, "405: Method Not Allowed");
      return;
    }
    if (path.equals("/healthz")) {
      report(ctx, req, healthz.all());
    } else if (path.equals("/healthz/ping")) {
      Responses.text(ctx, req, HttpResponseStatus.OK, "ok");
    } else if (path.startsWith("/healthz/")) {
      Optional<Healthz.Report> r = healthz.one(path.substring("/healthz/".length()));
      if (r.isEmpty()) {
        Responses.notFound(ctx, req);
      } else {
        report(ctx, req, r.get());
      }
    } else if (path.startsWith("/pods")) {
      String body = ApiSerialization.SHARED.asJson(PodsWithStatus.podList(pods.get()));
      Responses.json(ctx, req, HttpResponseStatus.OK, body);
    } else {
      Responses.json(ctx, req, HttpResponseStatus.OK, configz.get());
    }
  }

  private static void report(ChannelHandlerContext ctx, FullHttpRequest req, Healthz.Report r) {
    Responses.text(
        ctx,
        req,
        r.ok() ? HttpResponseStatus.OK : HttpResponseStatus.INTERNAL_SERVER_ERROR,
        r.body());
  }
}
