package io.jkubelet.agent.runtime.docker;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.transport.DockerHttpClient;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The engine's container listing ({@code GET /containers/json?all=1&filters=…}) on docker-java's
 * own transport, its body read with Jackson's streaming parser straight into {@link
 * ContainerSummary}: only {@code Id}, {@code Created}, {@code State} and the labels {@link
 * InspectMapping#SUMMARY_LABELS} are read, everything else (ports, mounts, networks, other labels)
 * is skipped unparsed. The mapping is {@link InspectMapping#summary(String, Map, String, Long)},
 * the one docker-java's {@code Container} goes through too.
 *
 * <p>NOTE: docker-java's {@code listContainersCmd} binds every field of every container through a
 * JSON tree; the PLEG lists every second, so at 110 pods that was a third of the idle agent's CPU.
 *
 * <p>Thread-safe: stateless apart from the thread-safe transport.
 */
final class ContainerList {
  private static final JsonFactory JSON = new JsonFactory();

  private final DockerHttpClient http;

  ContainerList(DockerHttpClient http) {
    this.http = http;
  }

  /**
   * Every container (running or not) with all the labels of {@code labelFilter} (as {@link
   * Scope#filter} makes it), as summaries; one whose labels name no pod is left out. Engine errors
   * and failures to reach it map as {@link DockerErrors#translate} maps docker-java's.
   */
  List<ContainerSummary> list(List<String> labelFilter) {
    DockerHttpClient.Request request =
        DockerHttpClient.Request.builder()
            .method(DockerHttpClient.Request.Method.GET)
            .path("/containers/json?all=1&filters=" + filters(labelFilter))
            .build();
    try (DockerHttpClient.Response response = http.execute(request)) {
      int status = response.getStatusCode();
      if (status < 200 || status > 299) {
        throw engineError(status, response.getBody());
      }
      return parse(response.getBody());
    } catch (JsonProcessingException e) {
      throw Errors.withCause(
          new RuntimeError(
              Kind.OTHER,
              "docker: the container list is not valid JSON: " + e.getOriginalMessage()),
          e);
    } catch (IOException e) {
      throw DockerErrors.translate(new UncheckedIOException(e), null);
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
  }

  /** The summaries in a listing's body, in its order. */
  static List<ContainerSummary> parse(InputStream body) throws IOException {
    try (JsonParser p = JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        throw new JsonParseException(p, "not an array");
      }
      List<ContainerSummary> out = new ArrayList<>();
      JsonToken t;
      while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
        if (t == null) {
          throw new JsonParseException(p, "the list ends early");
        } else if (t == JsonToken.START_OBJECT) {
          container(p).ifPresent(out::add);
        } else {
          p.skipChildren(); // not a container: docker-java would have failed; skip it
        }
      }
      return out;
    }
  }

  /** One container object, the parser at its start; leaves it at its end. */
  private static Optional<ContainerSummary> container(JsonParser p) throws IOException {
    String id = null;
    String state = null;
    Long created = null;
    Map<String, String> labels = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      switch (field) {
        case "Id" -> id = scalar(p, value);
        case "State" -> state = scalar(p, value);
        case "Created" -> created = number(p, value);
        case "Labels" -> labels = labels(p, value);
        default -> p.skipChildren();
      }
    }
    return InspectMapping.summary(id, labels, state, created);
  }

  /** The labels the summary reads; null for a JSON null. */
  private static Map<String, String> labels(JsonParser p, JsonToken value) throws IOException {
    if (value != JsonToken.START_OBJECT) {
      p.skipChildren();
      return null;
    }
    Map<String, String> labels = new HashMap<>(8);
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String key = p.currentName();
      JsonToken v = p.nextToken();
      if (InspectMapping.SUMMARY_LABELS.contains(key)) {
        labels.put(key, scalar(p, v));
      } else {
        p.skipChildren(); // a scalar's text is never decoded
      }
    }
    return labels;
  }

  /** A scalar's text; null for a JSON null, and an object or array is skipped as null. */
  static String scalar(JsonParser p, JsonToken value) throws IOException {
    if (value.isScalarValue() && value != JsonToken.VALUE_NULL) {
      return p.getText();
    }
    p.skipChildren();
    return null;
  }

  private static Long number(JsonParser p, JsonToken value) throws IOException {
    return switch (value) {
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getValueAsLong();
      case VALUE_STRING -> {
        try {
          yield Long.parseLong(p.getText().trim());
        } catch (NumberFormatException e) {
          yield null;
        }
      }
      default -> {
        p.skipChildren();
        yield null;
      }
    };
  }

  /** {@code {"label":[…]}}, URL-encoded, as docker-java sends it. */
  static String filters(List<String> labelFilter) {
    return filters(Map.of("label", labelFilter));
  }

  /**
   * The engine's {@code filters} query parameter, encoded: each filter's values; empty ones left
   * out.
   */
  static String filters(Map<String, List<String>> filters) {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(w)) {
      g.writeStartObject();
      for (Map.Entry<String, List<String>> f : filters.entrySet()) {
        if (f.getValue().isEmpty()) {
          continue;
        }
        g.writeArrayFieldStart(f.getKey());
        for (String v : f.getValue()) {
          g.writeString(v);
        }
        g.writeEndArray();
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return URLEncoder.encode(w.toString(), StandardCharsets.UTF_8);
  }

  /** The exception docker-java throws for this answer, so that it maps the same. */
  static DockerException engineError(int status, InputStream body) {
    String text;
    try {
      text = body == null ? "" : new String(body.readNBytes(64 * 1024), StandardCharsets.UTF_8);
    } catch (IOException e) {
      text = "";
    }
    return status == 404 ? new NotFoundException(text) : new DockerException(text, status);
  }
}
