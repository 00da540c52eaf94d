package io.jkubelet.agent.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A hand-written Elasticsearch for unit tests: {@code PUT /_index_template/x} and {@code POST
 * /_bulk} with {@code index} actions under {@code external_gte} versions, as the real server
 * applies them (a lower version answers 409). Failures are scripted: a whole answer ({@link
 * #failNext}, {@link #requestStatus}) or one item's status ({@link #itemStatus}). Records every
 * request, and how many {@code _bulk} requests were in flight at once.
 *
 * <p>Thread-safe: requests are handled on a pool of their own; the handler and the test share
 * {@code this} as the lock.
 */
final class FakeSearchServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A stored document and its version. */
  record Stored(String index, long version, JsonNode source) {}

  private final HttpServer server;
  private final Map<String, Stored> docs = new LinkedHashMap<>();
  private final List<String> templates = new ArrayList<>();
  private final Deque<Integer> failNext = new ConcurrentLinkedDeque<>();
  private volatile Function<JsonNode, Integer> itemStatus = d -> 0;
  private volatile Function<String, Integer> requestStatus = b -> 0;
  private volatile CountDownLatch bulkGate = new CountDownLatch(0);
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final AtomicInteger bulkInFlight = new AtomicInteger();
  private final AtomicInteger maxBulkInFlight = new AtomicInteger();
  private int bulkRequests;
  private long writes;

  FakeSearchServer() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", this::handle);
    server.setExecutor(pool);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** The next requests answer these statuses (e.g. 503, 429), one each. */
  void failNext(int... statuses) {
    for (int s : statuses) {
      failNext.add(s);
    }
  }

  /** A status for a whole {@code _bulk} request by its body (0: apply it). */
  void requestStatus(Function<String, Integer> f) {
    requestStatus = f;
  }

  /**
   * Holds each of the next {@code requests} {@code _bulk} requests until that many have arrived (or
   * 10 s passed): they answer only once all are in flight together.
   */
  void gateBulk(int requests) {
    bulkGate = new CountDownLatch(requests);
  }

  /** The most {@code _bulk} requests that were in flight at once. */
  int maxBulkInFlight() {
    return maxBulkInFlight.get();
  }

  /** A status for an item by its document (0: apply it). */
  void itemStatus(Function<JsonNode, Integer> f) {
    itemStatus = f;
  }

  synchronized Map<String, Stored> docs() {
    return new LinkedHashMap<>(docs);
  }

  synchronized List<String> templates() {
    return List.copyOf(templates);
  }

  synchronized int bulkRequests() {
    return bulkRequests;
  }

  /** Documents written, stale versions not counted. */
  synchronized long writes() {
    return writes;
  }

  private void handle(HttpExchange ex) throws IOException {
    byte[] body = ex.getRequestBody().readAllBytes();
    Integer fail = failNext.poll();
    if (fail != null) {
      answer(ex, fail, "{\"error\":\"scripted\",\"status\":" + fail + "}");
      return;
    }
    String path = ex.getRequestURI().getPath();
    if (path.startsWith("/_index_template/") && ex.getRequestMethod().equals("PUT")) {
      synchronized (this) {
        templates.add(new String(body, StandardCharsets.UTF_8));
      }
      answer(ex, 200, "{\"acknowledged\":true}");
    } else if (path.equals("/_bulk")) {
      maxBulkInFlight.accumulateAndGet(bulkInFlight.incrementAndGet(), Math::max);
      int status;
      String answer;
      try {
        CountDownLatch gate = bulkGate;
        gate.countDown();
        gate.await(10, TimeUnit.SECONDS);
        String text = new String(body, StandardCharsets.UTF_8);
        status = requestStatus.apply(text);
        answer = status != 0 ? "{\"error\":\"scripted\",\"status\":" + status + "}" : bulk(text);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        // Before the answer is written: once it is, the client may send its next request, which
        // must not find this one still counted in flight.
        bulkInFlight.decrementAndGet();
      }
      answer(ex, status == 0 ? 200 : status, answer);
    } else {
      answer(ex, 404, "{}");
    }
  }

  private synchronized String bulk(String body) throws IOException {
    bulkRequests++;
    String[] lines = body.split("\n");
    StringBuilder items = new StringBuilder();
    boolean errors = false;
    for (int i = 0; i + 1 < lines.length; i += 2) {
      JsonNode action = JSON.readTree(lines[i]).get("index");
      JsonNode source = JSON.readTree(lines[i + 1]);
      String id = action.get("_id").asText();
      long version = action.get("version").asLong();
      int status = itemStatus.apply(source);
      if (status == 0) {
        Stored old = docs.get(id);
        if (old != null && old.version > version) {
          status = 409;
        } else {
          docs.put(id, new Stored(action.get("_index").asText(), version, source));
          writes++;
          status = old == null ? 201 : 200;
        }
      }
      if (items.length() > 0) {
        items.append(',');
      }
      items.append("{\"index\":{\"status\":").append(status);
      if (status >= 300) {
        errors = true;
        items
            .append(",\"error\":{\"type\":\"scripted_")
            .append(status)
            .append("\",\"reason\":\"x\"}");
      }
      items.append("}}");
    }
    return "{\"errors\":" + errors + ",\"items\":[" + items + "]}";
  }

  private static void answer(HttpExchange ex, int status, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(status, b.length);
    ex.getResponseBody().write(b);
    ex.close();
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
  }
}
