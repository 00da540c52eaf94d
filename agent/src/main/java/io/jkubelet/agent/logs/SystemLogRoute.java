package io.jkubelet.agent.logs;

import io.jkubelet.agent.server.Responses;
import io.jkubelet.agent.server.Route;
import io.jkubelet.agent.server.auth.Subject;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /logs/<path>}: the node's log directory (upstream's {@code http.FileServer} over
 * {@code /var/log}, authorized as {@code nodes/log}). A directory is an HTML listing as Go's file
 * server writes it ({@code <pre>}, one link per entry, directories with a trailing slash); a
 * directory asked without its slash is redirected (301) to it; a file is streamed as {@code
 * text/plain}. A path with a {@code ..} segment is 404; one that leaves the root through a symbolic
 * link is 403. Listing and reading run on the executor, never the event loop.
 */
public final class SystemLogRoute implements Route {
  private static final Logger log = LoggerFactory.getLogger(SystemLogRoute.class);
  private static final String PREFIX = "/logs/";
  private static final int CHUNK = 32 * 1024;

  private final Path root;
  private final Executor executor;

  /**
   * @param root the directory served (upstream: {@code /var/log})
   * @param executor where listing and reading run (virtual threads)
   */
  public SystemLogRoute(Path root, Executor executor) {
    this.root = root.toAbsolutePath().normalize();
    this.executor = executor;
  }

  @Override
  public boolean matches(String path) {
    return path.equals("/logs") || path.startsWith(PREFIX);
  }

  @Override
  public void handle(ChannelHandlerContext ctx, FullHttpRequest req, Subject subject) {
    if (!req.method().equals(HttpMethod.GET)) {
      Responses.text(ctx, req, HttpResponseStatus.METHOD_NOT_ALLOWED, "405: Method Not Allowed");
      return;
    }
    String path = new QueryStringDecoder(req.uri()).path();
    if (path.equals("/logs")) {
      redirect(ctx, req, PREFIX);
      return;
    }
    String rel = path.substring(PREFIX.length());
    for (String segment : rel.split("/", -1)) {
      if (segment.equals("..") || segment.indexOf('\0') >= 0) {
        Responses.notFound(ctx, req);
        return;
      }
    }
    req.retain();
    executor.execute(
        () -> {
          try {
            serve(ctx, req, path, rel);
          } finally {
            req.release();
          }
        });
  }

  private void serve(ChannelHandlerContext ctx, FullHttpRequest req, String path, String rel) {
    Path target = root.resolve(rel).normalize();
    try {
      Path real = target.toRealPath();
      if (!target.startsWith(root) || !real.startsWith(root.toRealPath())) {
        log.info("Logs: refused {}: it leads out of {}", path, root);
        Responses.text(ctx, req, HttpResponseStatus.FORBIDDEN, "403 Forbidden");
      } else if (Files.isDirectory(real)) {
        if (!path.endsWith("/")) {
          redirect(ctx, req, path + "/");
        } else {
          Responses.send(
              ctx, req, HttpResponseStatus.OK, "text/html; charset=utf-8", listing(real));
        }
      } else if (Files.isRegularFile(real) && Files.isReadable(real)) {
        stream(ctx, req, real);
      } else {
        Responses.notFound(ctx, req);
      }
    } catch (NoSuchFileException e) {
      Responses.notFound(ctx, req);
    } catch (IOException | SecurityException e) {
      log.info("Logs: cannot serve {}: {}", path, e.toString());
      Responses.text(ctx, req, HttpResponseStatus.FORBIDDEN, "403 Forbidden");
    }
  }

  /** Go's directory listing: entries sorted by name, directories with a slash. */
  static byte[] listing(Path dir) throws IOException {
    StringBuilder html = new StringBuilder("<pre>\n");
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.sorted().toList()) {
        String slash = Files.isDirectory(p) ? "/" : "";
        String name = p.getFileName().toString() + slash;
        html.append("<a href=\"")
            .append(
                URLEncoder.encode(p.getFileName().toString(), StandardCharsets.UTF_8)
                    .replace("+", "%20"))
            .append(slash)
            .append("\">")
            .append(escape(name))
            .append("</a>\n");
      }
    }
    return html.append("</pre>\n").toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void stream(ChannelHandlerContext ctx, FullHttpRequest req, Path file) {
    LogStream stream = new LogStream(ctx, req, OptionalLong.empty());
    stream.open(
        () -> {
          try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[CHUNK];
            int n;
            while (!stream.isDone() && (n = in.read(buf)) > 0) {
              stream.output(java.util.Arrays.copyOf(buf, n));
            }
            stream.end(null);
          } catch (IOException e) {
            stream.end(e);
          }
          return () -> {};
        });
  }

  private static void redirect(ChannelHandlerContext ctx, FullHttpRequest req, String location) {
    FullHttpResponse res =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.MOVED_PERMANENTLY);
    res.headers().set(HttpHeaderNames.LOCATION, location);
    HttpUtil.setContentLength(res, 0);
    HttpUtil.setKeepAlive(res, HttpUtil.isKeepAlive(req));
    var f = ctx.channel().writeAndFlush(res);
    if (!HttpUtil.isKeepAlive(req)) {
      f.addListener(io.netty.channel.ChannelFutureListener.CLOSE);
    }
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&#34;")
        .replace("'", "&#39;");
  }
}
