package io.jkubelet.agent.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jkubelet.agent.server.auth.Subject;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.timeline.Timeline;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code GET /pods/{namespace}/{name}/timeline}: the pod's start-up timeline as JSON ({@link
 * Timeline}), jkubelet's own. Authorized as the rest of {@code /pods}: subresource {@code proxy} of
 * the node. An unknown pod, or one this node has no timeline of, is a 404 that says so. It reads
 * memory only, so it answers on the event loop.
 */
public final class PodTimelineRoute implements Route {
  private static final Pattern PATH = Pattern.compile("^/pods/([^/]+)/([^/]+)/timeline/?$");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final PodTimelines timelines;

  public PodTimelineRoute(PodTimelines timelines) {
    this.timelines = Objects.requireNonNull(timelines, "timelines");
  }

  @Override
  public boolean matches(String path) {
    return PATH.matcher(path).matches();
  }

  @Override
  public void handle(ChannelHandlerContext ctx, FullHttpRequest req, Subject subject) {
    if (!req.method().equals(HttpMethod.GET) && !req.method().equals(HttpMethod.HEAD)) {
      Responses.text(ctx, req, HttpResponseStatus.METHOD_NOT_ALLOWED, "405: Method Not Allowed");
      return;
    }
    Matcher m = PATH.matcher(new QueryStringDecoder(req.uri()).path());
    if (!m.matches()) {
      Responses.notFound(ctx, req);
      return;
    }
    String namespace = m.group(1);
    String name = m.group(2);
    if (!timelines.enabled()) {
      Responses.notFound(
          ctx, req, "start-up timelines are off on this node (podStartTimeline: false)\n");
      return;
    }
    Optional<Timeline> t = timelines.find(namespace, name);
    if (t.isEmpty()) {
      Responses.notFound(
          ctx,
          req,
          "pod \"" + namespace + "/" + name + "\" has no start-up timeline on this node\n");
      return;
    }
    try {
      Responses.json(ctx, req, HttpResponseStatus.OK, JSON.writeValueAsString(t.get()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a timeline that does not serialize: " + e.getMessage(), e);
    }
  }
}
