package io.jkubelet.agent.export;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.agent.util.Failure;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Elasticsearch 7/8 and OpenSearch 1/2 over the JDK's {@link HttpClient}, with Jackson's streaming
 * parser for the answers: the index template and {@code _bulk}, nothing else. No client library:
 * the two calls are a few lines each, and the agent's memory budget has no room for one.
 *
 * <p>Each document is an {@code index} action with {@code _id} its id and {@code version} its count
 * under {@code version_type=external_gte}: resending a batch writes nothing new, and an older count
 * arriving after a newer one is refused with a 409 (counted as stale, not an error).
 *
 * <p>Thread-safe (the {@link HttpClient} is).
 */
final class BulkClient {
  /** Leaves the answer's stream open: it is read to its end, for the connection's reuse. */
  private static final JsonFactory JSON =
      JsonFactory.builder().disable(StreamReadFeature.AUTO_CLOSE_SOURCE).build();

  private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy.MM.dd");

  private final HttpClient http;
  private final ExportTarget target;
  private final Duration timeout;

  /** What became of one document of a bulk request. */
  enum ItemResult {
    /** Written (200, 201). */
    WRITTEN,
    /** A newer version was there already (409): nothing to do. */
    STALE,
    /** The server was busy or failing for this document (429, 5xx): send it again. */
    RETRY,
    /** The server refused the document (another 4xx, e.g. a mapping conflict): give up on it. */
    REJECTED
  }

  /** The answer to a bulk request, item by item, in the order of the documents. */
  record BulkResult(List<ItemResult> items, List<String> errors) {}

  /** The server answered a whole request with an error status, or did not answer. */
  static final class BulkException extends Failure {
    BulkException(int status, String message) {
      super(status, message);
    }

    /** The HTTP status, or 0 when no answer came. */
    int status() {
      return detail();
    }
  }

  BulkClient(HttpClient http, ExportTarget target, Duration timeout) {
    this.http = Objects.requireNonNull(http);
    this.target = Objects.requireNonNull(target);
    this.timeout = Objects.requireNonNull(timeout);
  }

  /** The daily index of a document: {@code <index>-yyyy.MM.dd}. */
  String indexOf(ExportDocument d) {
    return target.index() + "-" + DAY.format(d.day());
  }

  /**
   * The export indices' refresh interval: a document is searchable within this time. The default (1
   * s) makes the server write a new segment every second under load, which costs it about a fifth
   * more CPU per document in the export benchmark; an event store read by people does not need it
   * sooner.
   */
  static final String REFRESH_INTERVAL = "5s";

  /**
   * Creates or replaces the index template {@code <index>} for {@code <index>-*}: timestamps as
   * dates, the message as text, every other string as a keyword; a refresh every {@link
   * #REFRESH_INTERVAL}.
   */
  void putTemplate() throws BulkException {
    String body = template(target.index());
    HttpResponse<InputStream> r =
        send("PUT", "/_index_template/" + target.index(), body.getBytes(StandardCharsets.UTF_8));
    drain(r, true);
  }

  static String template(String index) {
    String keyword = "{\"type\":\"keyword\",\"ignore_above\":1024}";
    String date = "{\"type\":\"date\"}";
    return "{\"index_patterns\":[\""
        + index
        + "-*\"],\"priority\":100,\"template\":{\"settings\":{\"index\":{\"refresh_interval\":\""
        + REFRESH_INTERVAL
        + "\"}},\"mappings\":{"
        + "\"dynamic_templates\":[{\"strings\":{\"match_mapping_type\":\"string\",\"mapping\":"
        + keyword
        + "}}],\"properties\":{"
        + "\"@timestamp\":"
        + date
        + ",\"firstTimestamp\":"
        + date
        + ",\"lastTimestamp\":"
        + date
        + ",\"eventTime\":"
        + date
        + ",\"message\":{\"type\":\"text\"},\"count\":{\"type\":\"long\"}"
        + ",\"uid\":"
        + keyword
        + ",\"namespace\":"
        + keyword
        + ",\"name\":"
        + keyword
        + ",\"type\":"
        + keyword
        + ",\"reason\":"
        + keyword
        + ",\"involvedObject\":{\"properties\":{\"kind\":"
        + keyword
        + ",\"namespace\":"
        + keyword
        + ",\"name\":"
        + keyword
        + ",\"uid\":"
        + keyword
        + "}}}}}}";
  }

  /** Sends the documents in one {@code _bulk} request. */
  BulkResult bulk(List<ExportDocument> docs) throws BulkException {
    HttpResponse<InputStream> r =
        send(
            "POST",
            "/_bulk?filter_path=errors,items.*.status,items.*.error.type,items.*.error.reason",
            body(docs));
    try (InputStream in = r.body()) {
      if (r.statusCode() / 100 != 2) {
        throw failed(r.statusCode(), in);
      }
      BulkResult result = parse(in, docs.size());
      // Read to the end, so that the connection goes back to the pool for the next request.
      in.transferTo(OutputStream.nullOutputStream());
      return result;
    } catch (IOException e) {
      throw Errors.withCause(new BulkException(0, "reading the _bulk answer: " + e), e);
    }
  }

  /**
   * The request body: an action line and the document per document, written once as bytes (the
   * document's JSON is never parsed or re-serialized).
   */
  byte[] body(List<ExportDocument> docs) {
    int size = 0;
    for (ExportDocument d : docs) {
      size += d.json().length() + d.id().length() + 128;
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream(size);
    for (ExportDocument d : docs) {
      body.writeBytes(ACTION_INDEX);
      body.writeBytes(indexBytes(d.day()));
      body.writeBytes(ACTION_ID);
      body.writeBytes(d.id().getBytes(StandardCharsets.ISO_8859_1)); // ids are ASCII
      body.writeBytes(ACTION_VERSION);
      body.writeBytes(Long.toString(d.version()).getBytes(StandardCharsets.ISO_8859_1));
      body.writeBytes(ACTION_END);
      body.writeBytes(d.json().getBytes(StandardCharsets.UTF_8));
      body.write('\n');
    }
    return body.toByteArray();
  }

  private static final byte[] ACTION_INDEX = ascii("{\"index\":{\"_index\":\"");
  private static final byte[] ACTION_ID = ascii("\",\"_id\":\"");
  private static final byte[] ACTION_VERSION = ascii("\",\"version\":");
  private static final byte[] ACTION_END = ascii(",\"version_type\":\"external_gte\"}}\n");

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** The last day's index name as bytes: nearly every document of a batch has the same day. */
  private volatile DayIndex lastDay = new DayIndex(null, null);

  private record DayIndex(LocalDate day, byte[] index) {}

  private byte[] indexBytes(LocalDate day) {
    DayIndex last = lastDay;
    if (!day.equals(last.day())) {
      last =
          new DayIndex(
              day, (target.index() + "-" + DAY.format(day)).getBytes(StandardCharsets.UTF_8));
      lastDay = last;
    }
    return last.index();
  }

  /** Reads {@code {"errors":b,"items":[{"index":{"status":n,"error":{...}}},...]}}. */
  static BulkResult parse(InputStream in, int expected) throws IOException, BulkException {
    List<ItemResult> items = new ArrayList<>(expected);
    List<String> errors = new ArrayList<>(expected);
    try (JsonParser p = JSON.createParser(in)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new BulkException(200, "_bulk answer is not a JSON object");
      }
      boolean anyError = true;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken t = p.nextToken();
        if ("errors".equals(field)) {
          anyError = t == JsonToken.VALUE_TRUE;
        } else if ("items".equals(field) && t == JsonToken.START_ARRAY) {
          while (p.nextToken() == JsonToken.START_OBJECT) {
            p.nextToken(); // the action name
            p.nextToken(); // its object
            readItem(p, items, errors);
            p.nextToken(); // end of the item
          }
        } else {
          p.skipChildren();
        }
      }
      if (!anyError && items.isEmpty()) {
        // filter_path drops the items when there are no errors.
        for (int i = 0; i < expected; i++) {
          items.add(ItemResult.WRITTEN);
          errors.add(null);
        }
      }
    }
    if (items.size() != expected) {
      throw new BulkException(
          200, "_bulk answered " + items.size() + " items for " + expected + " documents");
    }
    return new BulkResult(items, errors);
  }

  private static void readItem(JsonParser p, List<ItemResult> items, List<String> errors)
      throws IOException {
    int status = 0;
    String error = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String f = p.currentName();
      p.nextToken();
      if ("status".equals(f)) {
        status = p.getIntValue();
      } else if ("error".equals(f) && p.currentToken() == JsonToken.START_OBJECT) {
        String type = null;
        String reason = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String ef = p.currentName();
          p.nextToken();
          if ("type".equals(ef)) {
            type = p.getText();
          } else if ("reason".equals(ef)) {
            reason = p.getText();
          } else {
            p.skipChildren();
          }
        }
        error = type + ": " + reason;
      } else {
        p.skipChildren();
      }
    }
    items.add(classify(status));
    errors.add(error);
  }

  static ItemResult classify(int status) {
    if (status / 100 == 2) {
      return ItemResult.WRITTEN;
    }
    if (status == 409) {
      return ItemResult.STALE;
    }
    if (status == 429 || status >= 500 || status == 0) {
      return ItemResult.RETRY;
    }
    return ItemResult.REJECTED;
  }

  private HttpResponse<InputStream> send(String method, String path, byte[] body)
      throws BulkException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(target.base() + path))
            .timeout(timeout)
            .header(
                "Content-Type",
                path.startsWith("/_bulk") ? "application/x-ndjson" : "application/json")
            .method(method, HttpRequest.BodyPublishers.ofByteArray(body));
    if (target.authorization() != null) {
      b.header("Authorization", target.authorization());
    }
    try {
      return http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      throw Errors.withCause(new BulkException(0, method + " " + path + ": " + e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Errors.withCause(new BulkException(0, method + " " + path + ": interrupted"), e);
    }
  }

  private static void drain(HttpResponse<InputStream> r, boolean check) throws BulkException {
    try (InputStream in = r.body()) {
      if (check && r.statusCode() / 100 != 2) {
        throw failed(r.statusCode(), in);
      }
      in.transferTo(OutputStream.nullOutputStream());
    } catch (IOException e) {
      throw Errors.withCause(new BulkException(0, "reading the answer: " + e), e);
    }
  }

  private static BulkException failed(int status, InputStream in) throws IOException {
    byte[] head = in.readNBytes(512);
    return new BulkException(
        status, "HTTP " + status + ": " + new String(head, StandardCharsets.UTF_8).strip());
  }
}
