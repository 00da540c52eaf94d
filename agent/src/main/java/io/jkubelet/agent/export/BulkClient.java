package io.jkubelet.agent.export;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
  private static final JsonFactory JSON = new JsonFactory();
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
  static final class BulkException extends Exception {
    private final int status;

    BulkException(int status, String message, Throwable cause) {
      super(message, cause);
      this.status = status;
    }

    /** The HTTP status, or 0 when no answer came. */
    int status() {
      return status;
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
   * Creates or replaces the index template {@code <index>} for {@code <index>-*}: timestamps as
   * dates, the message as text, every other string as a keyword.
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
        + "-*\"],\"priority\":100,\"template\":{\"mappings\":{"
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
    ByteArrayOutputStream body = new ByteArrayOutputStream(docs.size() * 768);
    for (ExportDocument d : docs) {
      String action =
          "{\"index\":{\"_index\":\""
              + indexOf(d)
              + "\",\"_id\":\""
              + d.id()
              + "\",\"version\":"
              + d.version()
              + ",\"version_type\":\"external_gte\"}}\n";
      body.writeBytes(action.getBytes(StandardCharsets.UTF_8));
      body.writeBytes(d.json().getBytes(StandardCharsets.UTF_8));
      body.write('\n');
    }
    HttpResponse<InputStream> r =
        send(
            "POST",
            "/_bulk?filter_path=errors,items.*.status,items.*.error.type,items.*.error.reason",
            body.toByteArray());
    try (InputStream in = r.body()) {
      if (r.statusCode() / 100 != 2) {
        throw failed(r.statusCode(), in);
      }
      return parse(in, docs.size());
    } catch (IOException e) {
      throw new BulkException(0, "reading the _bulk answer: " + e, e);
    }
  }

  /** Reads {@code {"errors":b,"items":[{"index":{"status":n,"error":{...}}},...]}}. */
  static BulkResult parse(InputStream in, int expected) throws IOException, BulkException {
    List<ItemResult> items = new ArrayList<>(expected);
    List<String> errors = new ArrayList<>(expected);
    try (JsonParser p = JSON.createParser(in)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new BulkException(200, "_bulk answer is not a JSON object", null);
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
          200, "_bulk answered " + items.size() + " items for " + expected + " documents", null);
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
      throw new BulkException(0, method + " " + path + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BulkException(0, method + " " + path + ": interrupted", e);
    }
  }

  private static void drain(HttpResponse<InputStream> r, boolean check) throws BulkException {
    try (InputStream in = r.body()) {
      if (check && r.statusCode() / 100 != 2) {
        throw failed(r.statusCode(), in);
      }
      in.transferTo(java.io.OutputStream.nullOutputStream());
    } catch (IOException e) {
      throw new BulkException(0, "reading the answer: " + e, e);
    }
  }

  private static BulkException failed(int status, InputStream in) throws IOException {
    byte[] head = in.readNBytes(512);
    return new BulkException(
        status, "HTTP " + status + ": " + new String(head, StandardCharsets.UTF_8).strip(), null);
  }
}
