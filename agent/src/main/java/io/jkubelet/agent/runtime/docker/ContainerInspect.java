package io.jkubelet.agent.runtime.docker;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.transport.DockerHttpClient;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A container inspect ({@code GET /containers/{id}/json}) on docker-java's own transport, its body
 * read with Jackson's streaming parser straight into {@link Inspected}: the fields that record
 * names are read, everything else (the host config's hundred settings, the graph driver, the
 * network's details) is skipped unparsed.
 *
 * <p>NOTE: docker-java's {@code inspectContainerCmd} binds every field into its object graph by
 * reflection. The first relist after a restart inspects every container of the node (220 at 110
 * pods) while the JVM is still cold, and every pod's status waits for it: that binding was most of
 * the relist's CPU.
 *
 * <p>Thread-safe: stateless apart from the thread-safe transport.
 */
final class ContainerInspect {
  private static final JsonFactory JSON = new JsonFactory();

  private final DockerHttpClient http;
  private final DockerClient api;

  /** Reads on {@code http} when it is not null, else through {@code api}. */
  ContainerInspect(DockerHttpClient http, DockerClient api) {
    this.http = http;
    this.api = api;
  }

  /**
   * Reads on {@code api}'s transport when it is at hand ({@link DockerClients#transportOf}), else
   * through docker-java's {@code inspectContainerCmd}.
   */
  static ContainerInspect of(DockerClient api) {
    return DockerClients.transportOf(api)
        .map(http -> new ContainerInspect(http, null))
        .orElseGet(() -> new ContainerInspect(null, api));
  }

  /**
   * The container's inspect. A container that is gone throws docker-java's {@code
   * NotFoundException}, as {@code inspectContainerCmd} does, so that callers tell it apart the same
   * way; other engine errors likewise.
   */
  Inspected inspect(String id) {
    if (http == null) {
      return Inspected.of(api.inspectContainerCmd(id).exec());
    }
    DockerHttpClient.Request request =
        DockerHttpClient.Request.builder()
            .method(DockerHttpClient.Request.Method.GET)
            .path("/containers/" + URLEncoder.encode(id, StandardCharsets.UTF_8) + "/json")
            .build();
    try (DockerHttpClient.Response response = http.execute(request)) {
      int status = response.getStatusCode();
      if (status < 200 || status > 299) {
        throw ContainerList.engineError(status, response.getBody());
      }
      return parse(response.getBody());
    } catch (JsonProcessingException e) {
      throw Errors.withCause(
          new RuntimeError(
              Kind.OTHER,
              "docker: the inspect of " + id + " is not valid JSON: " + e.getOriginalMessage()),
          e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The inspect in an answer's body. */
  static Inspected parse(InputStream body) throws IOException {
    try (JsonParser p = JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new JsonParseException(p, "not an object");
      }
      String id = null;
      String name = null;
      String created = null;
      String image = null;
      Inspected.State state = null;
      String networkMode = null;
      Inspected.Network network = new Inspected.Network(null, null, Map.of());
      Inspected.Config config = new Inspected.Config(null, null, false);
      List<Inspected.Mount> mounts = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        switch (field) {
          case "Id" -> id = ContainerList.scalar(p, value);
          case "Name" -> name = ContainerList.scalar(p, value);
          case "Created" -> created = ContainerList.scalar(p, value);
          case "Image" -> image = ContainerList.scalar(p, value);
          case "State" -> state = state(p, value);
          case "HostConfig" -> networkMode = field(p, value, "NetworkMode");
          case "NetworkSettings" -> network = network(p, value);
          case "Config" -> config = config(p, value);
          case "Mounts" -> mounts = mounts(p, value);
          default -> p.skipChildren();
        }
      }
      return new Inspected(
          id,
          name,
          created,
          image,
          state,
          new Inspected.Network(networkMode, network.ipAddress(), network.ips()),
          config,
          mounts);
    }
  }

  private static Inspected.State state(JsonParser p, JsonToken value) throws IOException {
    if (value != JsonToken.START_OBJECT) {
      p.skipChildren();
      return null;
    }
    boolean running = false;
    boolean dead = false;
    boolean oomKilled = false;
    Long exitCode = null;
    String error = null;
    String startedAt = null;
    String finishedAt = null;
    long pid = 0;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken v = p.nextToken();
      switch (field) {
        case "Running" -> running = v == JsonToken.VALUE_TRUE;
        case "Dead" -> dead = v == JsonToken.VALUE_TRUE;
        case "OOMKilled" -> oomKilled = v == JsonToken.VALUE_TRUE;
        case "ExitCode" -> exitCode = v.isNumeric() ? p.getValueAsLong() : null;
        case "Error" -> error = ContainerList.scalar(p, v);
        case "StartedAt" -> startedAt = ContainerList.scalar(p, v);
        case "FinishedAt" -> finishedAt = ContainerList.scalar(p, v);
        case "Pid" -> pid = v.isNumeric() ? p.getValueAsLong() : 0;
        default -> p.skipChildren();
      }
    }
    return new Inspected.State(
        running, dead, oomKilled, exitCode, error, startedAt, finishedAt, pid);
  }

  private static Inspected.Network network(JsonParser p, JsonToken value) throws IOException {
    String ip = null;
    Map<String, String> ips = new LinkedHashMap<>();
    if (value != JsonToken.START_OBJECT) {
      p.skipChildren();
      return new Inspected.Network(null, null, ips);
    }
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken v = p.nextToken();
      if (field.equals("IPAddress")) {
        ip = ContainerList.scalar(p, v);
      } else if (field.equals("Networks") && v == JsonToken.START_OBJECT) {
        ips = entries(p, (q, network) -> field(q, network, "IPAddress"));
      } else {
        p.skipChildren();
      }
    }
    return new Inspected.Network(null, ip, ips);
  }

  private static Inspected.Config config(JsonParser p, JsonToken value) throws IOException {
    String image = null;
    Map<String, String> labels = null;
    boolean tty = false;
    if (value != JsonToken.START_OBJECT) {
      p.skipChildren();
      return new Inspected.Config(null, null, false);
    }
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken v = p.nextToken();
      if (field.equals("Image")) {
        image = ContainerList.scalar(p, v);
      } else if (field.equals("Labels") && v == JsonToken.START_OBJECT) {
        labels = entries(p, ContainerList::scalar);
      } else if (field.equals("Tty")) {
        tty = v == JsonToken.VALUE_TRUE;
      } else {
        p.skipChildren();
      }
    }
    return new Inspected.Config(image, labels, tty);
  }

  private static List<Inspected.Mount> mounts(JsonParser p, JsonToken value) throws IOException {
    List<Inspected.Mount> mounts = new ArrayList<>();
    if (value != JsonToken.START_ARRAY) {
      p.skipChildren();
      return mounts;
    }
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t != JsonToken.START_OBJECT) {
        p.skipChildren();
        continue;
      }
      String source = null;
      String destination = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken v = p.nextToken();
        switch (field) {
          case "Source" -> source = ContainerList.scalar(p, v);
          case "Destination" -> destination = ContainerList.scalar(p, v);
          default -> p.skipChildren();
        }
      }
      mounts.add(new Inspected.Mount(source, destination));
    }
    return mounts;
  }

  /** Reads one JSON value as text. */
  @FunctionalInterface
  private interface Value {
    String read(JsonParser p, JsonToken value) throws IOException;
  }

  /** An object's entries, each value read by {@code value}; the parser at its start. */
  private static Map<String, String> entries(JsonParser p, Value value) throws IOException {
    Map<String, String> out = new LinkedHashMap<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String key = p.currentName();
      out.put(key, value.read(p, p.nextToken()));
    }
    return out;
  }

  /** The text of one field of an object, the others skipped; null when absent. */
  private static String field(JsonParser p, JsonToken value, String name) throws IOException {
    if (value != JsonToken.START_OBJECT) {
      p.skipChildren();
      return null;
    }
    String out = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken v = p.nextToken();
      if (field.equals(name)) {
        out = ContainerList.scalar(p, v);
      } else {
        p.skipChildren();
      }
    }
    return out;
  }
}
