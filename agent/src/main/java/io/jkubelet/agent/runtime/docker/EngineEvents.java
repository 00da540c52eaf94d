package io.jkubelet.agent.runtime.docker;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Event;
import com.github.dockerjava.transport.DockerHttpClient;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The engine's container event stream ({@code GET /events?filters=…}) read on the caller's thread
 * from docker-java's own transport, for {@link EventWatcher}: the {@code docker-events} virtual
 * thread blocks on the stream, where docker-java's {@code eventsCmd} would start a platform thread
 * of its own ({@code docker-java-stream-N}) to read it and have the caller wait for that.
 *
 * <p>{@link #open} keeps the callback's contract as docker-java calls it: {@code onStart} with what
 * closes the stream once the engine answered, {@code onNext} for each event, then {@code
 * onComplete} when the engine ends the stream or {@code onError} when it breaks (or is closed).
 * Only the event's {@code status} and {@code id} are read; the rest is skipped unparsed. Stateless
 * apart from the thread-safe transport.
 */
final class EngineEvents implements EventWatcher.EventSource {
  private static final JsonFactory JSON = new JsonFactory();

  /** The container events the PLEG is woken by. */
  static final List<String> EVENTS = List.of("start", "die", "destroy", "oom");

  private final DockerHttpClient http;
  private final Scope scope;

  EngineEvents(DockerHttpClient http, Scope scope) {
    this.http = http;
    this.scope = scope;
  }

  /** Follows one stream until it ends; returns only then. */
  @Override
  public void open(ResultCallback<Event> callback) {
    DockerHttpClient.Request request =
        DockerHttpClient.Request.builder()
            .method(DockerHttpClient.Request.Method.GET)
            .path(
                "/events?filters="
                    + ContainerList.filters(
                        Map.of(
                            "type", List.of("container"),
                            "event", EVENTS,
                            "label", scope.labelFilter())))
            .build();
    try (DockerHttpClient.Response response = http.execute(request)) {
      int status = response.getStatusCode();
      if (status < 200 || status > 299) {
        callback.onError(ContainerList.engineError(status, response.getBody()));
        return;
      }
      callback.onStart(response);
      try (JsonParser p = JSON.createParser(response.getBody())) {
        JsonToken t;
        while ((t = p.nextToken()) != null) {
          if (t == JsonToken.START_OBJECT) {
            callback.onNext(event(p));
          }
        }
      }
      callback.onComplete();
    } catch (IOException | RuntimeException e) {
      callback.onError(e);
    }
  }

  /** One event object, the parser at its start; leaves it at its end. */
  private static Event event(JsonParser p) throws IOException {
    String status = null;
    String id = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken v = p.nextToken();
      if ("status".equals(field) && v == JsonToken.VALUE_STRING) {
        status = p.getText();
      } else if ("id".equals(field) && v == JsonToken.VALUE_STRING) {
        id = p.getText();
      } else {
        p.skipChildren();
      }
    }
    return new Event(status, id, null, null);
  }
}
