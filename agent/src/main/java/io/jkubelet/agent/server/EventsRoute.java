package io.jkubelet.agent.server;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventList;
import io.fabric8.kubernetes.api.model.EventListBuilder;
import io.jkubelet.agent.server.auth.Subject;
import io.jkubelet.agent.util.ApiSerialization;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read-only port's {@code GET /events}: a v1 EventList of the events kept locally, oldest first
 * by lastTimestamp, filtered by the query parameters {@code namespace}, {@code pod} and {@code uid}
 * (an empty value filters nothing). The list is made on {@code executor}, never on the event loop.
 */
final class EventsRoute implements Route {
  private static final Logger log = LoggerFactory.getLogger(EventsRoute.class);

  private final ReadOnlyServer.Events events;
  private final Executor executor;

  EventsRoute(ReadOnlyServer.Events events, Executor executor) {
    this.events = events;
    this.executor = executor;
  }

  @Override
  public boolean matches(String path) {
    return path.equals("/events") || path.equals("/events/");
  }

  @Override
  public void handle(ChannelHandlerContext ctx, FullHttpRequest request, Subject subject) {
    if (!HttpMethod.GET.equals(request.method())) {
      Responses.text(ctx, request, HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed\n");
      return;
    }
    QueryStringDecoder query = new QueryStringDecoder(request.uri());
    FullHttpRequest req = request.retain(); // the server releases its own count after handle
    executor.execute(
        () -> {
          try {
            Responses.json(ctx, req, HttpResponseStatus.OK, list(query));
          } catch (RuntimeException e) {
            log.warn("read-only server: /events failed: {}", e.toString());
            Responses.text(ctx, req, HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error\n");
          } finally {
            req.release();
          }
        });
  }

  private String list(QueryStringDecoder query) {
    List<Event> items =
        new ArrayList<>(
            events.list(param(query, "namespace"), param(query, "pod"), param(query, "uid")));
    items.sort(Comparator.comparing(e -> instant(e.getLastTimestamp())));
    EventList list =
        new EventListBuilder()
            .withApiVersion("v1")
            .withKind("EventList")
            .withNewMetadata()
            .endMetadata()
            .withItems(items)
            .build();
    return ApiSerialization.SHARED.asJson(list);
  }

  private static Optional<String> param(QueryStringDecoder query, String name) {
    List<String> values = query.parameters().get(name);
    return values == null || values.isEmpty()
        ? Optional.empty()
        : Optional.of(values.get(0)).filter(v -> !v.isEmpty());
  }

  private static Instant instant(String ts) {
    try {
      return ts == null ? Instant.MIN : Instant.parse(ts);
    } catch (DateTimeParseException e) {
      return Instant.MIN;
    }
  }
}
