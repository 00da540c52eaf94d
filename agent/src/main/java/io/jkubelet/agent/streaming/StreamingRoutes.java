package io.jkubelet.agent.streaming;

import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.server.Route;
import io.jkubelet.agent.server.auth.Subject;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The streaming paths, as upstream's {@code InstallDebuggingHandlers} lays them out: {@code
 * /exec/{ns}/{pod}[/{uid}]/{container}} and {@code /attach/...} (GET and POST), {@code
 * /portForward/{ns}/{pod}[/{uid}]} (GET and POST) and {@code /run/{ns}/{pod}[/{uid}]/{container}}
 * (POST). The kubelet server ({@code server.KubeletServer}) hands a request here, as a {@link
 * Route}, after authentication and authorization (subresource {@code proxy}); from then on the
 * connection belongs to {@link StreamingService}, which replaces the server's HTTP handlers on an
 * upgrade as {@link Route} allows.
 */
public final class StreamingRoutes implements Route {
  /** The first path segments served here. */
  public static final Set<String> PREFIXES = Set.of("exec", "attach", "portForward", "run");

  private final StreamingService service;

  public StreamingRoutes(StreamingService service) {
    this.service = service;
  }

  /**
   * The routes over the node's pods (static pods known by their mirrors' UIDs too), their
   * containers found first in what the pod cache last saw of them.
   */
  public static StreamingRoutes forNode(Runtime runtime, PodManager pods, PodCache seen) {
    return new StreamingRoutes(
        new StreamingService(
            new StreamTargets(
                pods::pods,
                pods::mirrorOf,
                uid -> seen.get(uid).filter(e -> e.error() == null).map(PodCache.Entry::status),
                runtime)));
  }

  /** Whether the path is one of the streaming paths (its first segment is). */
  @Override
  public boolean matches(String path) {
    List<String> parts = segments(path);
    return !parts.isEmpty() && PREFIXES.contains(parts.get(0));
  }

  /** The server's entry: see {@link #handle(ChannelHandlerContext, HttpRequest)}. */
  @Override
  public void handle(ChannelHandlerContext ctx, FullHttpRequest request, Subject subject) {
    if (!handle(ctx, request)) {
      Upgrades.refuse(ctx, Upgrades.text(HttpResponseStatus.NOT_FOUND, "404 page not found"));
    }
  }

  /**
   * Serves the request; returns false (and sends nothing) if its path is not a streaming one. A
   * path with the wrong number of segments is a 404, a wrong method a 405.
   */
  public boolean handle(ChannelHandlerContext ctx, HttpRequest req) {
    QueryStringDecoder uri = new QueryStringDecoder(req.uri());
    List<String> parts = segments(uri.path());
    if (parts.isEmpty() || !PREFIXES.contains(parts.get(0))) {
      return false;
    }
    String kind = parts.get(0);
    List<String> args = parts.subList(1, parts.size());
    Map<String, List<String>> query = uri.parameters();
    boolean post = req.method().equals(HttpMethod.POST);
    boolean get = req.method().equals(HttpMethod.GET);
    if (kind.equals("run") ? !post : !(post || get)) {
      Upgrades.refuse(
          ctx, Upgrades.text(HttpResponseStatus.METHOD_NOT_ALLOWED, "405: Method Not Allowed"));
      return true;
    }
    StreamingService.Target t = target(kind, args);
    if (t == null) {
      Upgrades.refuse(ctx, Upgrades.text(HttpResponseStatus.NOT_FOUND, "404 page not found"));
      return true;
    }
    switch (kind) {
      case "exec" -> service.exec(ctx, req, t, query);
      case "attach" -> service.attach(ctx, req, t, query);
      case "portForward" -> service.portForward(ctx, req, t, query);
      default -> service.run(ctx, t, query);
    }
    return true;
  }

  /** The target a path names, or null when it has the wrong shape. */
  static StreamingService.Target target(String kind, List<String> args) {
    if (kind.equals("portForward")) {
      return switch (args.size()) {
        case 2 -> new StreamingService.Target(args.get(0), args.get(1), "", "");
        case 3 -> new StreamingService.Target(args.get(0), args.get(1), args.get(2), "");
        default -> null;
      };
    }
    return switch (args.size()) {
      case 3 -> new StreamingService.Target(args.get(0), args.get(1), "", args.get(2));
      case 4 -> new StreamingService.Target(args.get(0), args.get(1), args.get(2), args.get(3));
      default -> null;
    };
  }

  private static List<String> segments(String path) {
    String p = path.startsWith("/") ? path.substring(1) : path;
    if (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p.isEmpty() ? List.of() : List.of(p.split("/", -1));
  }
}
