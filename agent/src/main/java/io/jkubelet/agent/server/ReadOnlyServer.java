package io.jkubelet.agent.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventList;
import io.fabric8.kubernetes.api.model.EventListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.prober.ProbeWorker;
import io.jkubelet.agent.util.ApiSerialization;
import io.jkubelet.agent.util.Lifecycle;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read-only port: {@code GET /healthz} ("ok", or 500 naming each unhealthy subsystem), {@code
 * GET /pods} (a v1 PodList of the pods this node runs, with the status jkubelet computed), {@code
 * GET /events} (a v1 EventList of the events kept locally, oldest first by lastTimestamp, filtered
 * by the query parameters {@code namespace}, {@code pod} and {@code uid}) and {@code GET /probes}
 * (how regularly each probe ran), and the documents added with {@link #serve} (the metrics and the
 * stats summary, as upstream's read-only port serves them). Requests run on virtual threads.
 */
public final class ReadOnlyServer implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(ReadOnlyServer.class);
  private static final ObjectMapper STATS_JSON = new ObjectMapper();

  private final String address;
  private final int port;
  private final Supplier<List<Pod>> pods;
  private final Map<String, Supplier<Health>> checks;
  private final Events events;
  private final Supplier<List<ProbeWorker.Stats>> probes;
  private final Map<String, Resource> resources = new LinkedHashMap<>();
  private HttpServer server;
  private ExecutorService executor;

  /**
   * A document served at one path on GET, made at each request: {@code /metrics}, {@code
   * /stats/summary}.
   */
  public record Resource(String contentType, Supplier<byte[]> body) {}

  /**
   * @param pods the pods with their current status
   * @param checks named health checks, in the order /healthz reports them
   * @param events the events kept locally, for {@code /events} (e.g. {@code EventStore::list});
   *     {@link Events#NONE} for none
   * @param probes how regularly each probe ran, for {@code /probes}
   */
  public ReadOnlyServer(
      String address,
      int port,
      Supplier<List<Pod>> pods,
      Map<String, Supplier<Health>> checks,
      Events events,
      Supplier<List<ProbeWorker.Stats>> probes) {
    this.probes = probes;
    this.address = address;
    this.port = port;
    this.pods = pods;
    this.checks = new LinkedHashMap<>(checks);
    this.events = events;
  }

  /** The events the read-only port serves, filtered by namespace, pod name and pod UID. */
  @FunctionalInterface
  public interface Events {
    /** No events kept: {@code /events} lists none. */
    Events NONE = (namespace, pod, uid) -> List.of();

    List<Event> list(Optional<String> namespace, Optional<String> podName, Optional<String> podUid);
  }

  /** Serves {@code resource} on GET of exactly {@code path}. Before {@link #start()} only. */
  public ReadOnlyServer serve(String path, Resource resource) {
    if (server != null) {
      throw new IllegalStateException("read-only server: add " + path + " before start");
    }
    resources.put(path, resource);
    return this;
  }

  @Override
  public void start() {
    try {
      server = HttpServer.create(new InetSocketAddress(address, port), 64);
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot listen on " + address + ":" + port + " for the read-only port: " + e.getMessage(),
          e);
    }
    executor = Executors.newVirtualThreadPerTaskExecutor();
    server.setExecutor(executor);
    server.createContext("/healthz", this::healthz);
    server.createContext("/pods", this::pods);
    server.createContext("/events", this::events);
    server.createContext("/probes", this::probes);
    resources.forEach((path, r) -> server.createContext(path, ex -> resource(ex, path, r)));
    server.createContext("/", ex -> send(ex, 404, "text/plain", "404 page not found\n"));
    server.start();
    log.info("read-only server: listening on {}:{}", address, port());
  }

  /** The bound port (useful when 0 asked for an ephemeral one). */
  public int port() {
    return server == null ? port : server.getAddress().getPort();
  }

  @Override
  public void stop() {
    if (server != null) {
      server.stop(0);
    }
    if (executor != null) {
      executor.shutdownNow();
    }
  }

  @Override
  public Health healthy() {
    return server != null ? Health.OK : Health.failing("read-only server is not started");
  }

  private void healthz(HttpExchange ex) throws IOException {
    if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
      send(ex, 405, "text/plain", "method not allowed\n");
      return;
    }
    Healthz.Report r = new Healthz(checks).all();
    send(ex, r.ok() ? 200 : 500, "text/plain; charset=utf-8", r.body());
  }

  private void pods(HttpExchange ex) throws IOException {
    if (!"GET".equals(ex.getRequestMethod())) {
      send(ex, 405, "text/plain", "method not allowed\n");
      return;
    }
    send(
        ex,
        200,
        "application/json",
        ApiSerialization.SHARED.asJson(PodsWithStatus.podList(pods.get())));
  }

  /**
   * Every probe worker: its pod, container, type and period, how many attempts ran, the mean and
   * the worst interval between attempts (milliseconds), and the ticks skipped because an attempt
   * was still running. For operators and the probe benchmark.
   */
  private void probes(HttpExchange ex) throws IOException {
    if (!"GET".equals(ex.getRequestMethod())) {
      send(ex, 405, "text/plain", "method not allowed\n");
      return;
    }
    ArrayNode items = STATS_JSON.createArrayNode();
    for (ProbeWorker.Stats st : probes.get()) {
      items
          .addObject()
          .put("podUID", st.key().podUid())
          .put("container", st.key().containerName())
          .put("type", st.key().type().name().toLowerCase())
          .put("periodMillis", st.period().toMillis())
          .put("attempts", st.attempts())
          .put("meanIntervalMillis", st.meanInterval().toNanos() / 1e6)
          .put("worstIntervalMillis", st.worstInterval().toNanos() / 1e6)
          .put("skipped", st.skipped());
    }
    ObjectNode body = STATS_JSON.createObjectNode();
    body.set("items", items);
    send(ex, 200, "application/json", STATS_JSON.writeValueAsString(body));
  }

  private static void resource(HttpExchange ex, String path, Resource r) throws IOException {
    if (!path.equals(ex.getRequestURI().getPath())) {
      send(ex, 404, "text/plain", "404 page not found\n");
      return;
    }
    if (!"GET".equals(ex.getRequestMethod())) {
      send(ex, 405, "text/plain", "method not allowed\n");
      return;
    }
    byte[] body;
    try {
      body = r.body().get();
    } catch (RuntimeException e) {
      log.warn("read-only server: {} failed: {}", path, e.toString());
      send(ex, 500, "text/plain", "internal error\n");
      return;
    }
    ex.getResponseHeaders().set("Content-Type", r.contentType());
    ex.sendResponseHeaders(200, body.length == 0 ? -1 : body.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(body);
    }
  }

  private void events(HttpExchange ex) throws IOException {
    if (!"GET".equals(ex.getRequestMethod())) {
      send(ex, 405, "text/plain", "method not allowed\n");
      return;
    }
    if (!"/events".equals(ex.getRequestURI().getPath())
        && !"/events/".equals(ex.getRequestURI().getPath())) {
      send(ex, 404, "text/plain", "404 page not found\n");
      return;
    }
    Map<String, String> q = query(ex.getRequestURI().getRawQuery());
    List<Event> items =
        new ArrayList<>(
            events.list(
                Optional.ofNullable(q.get("namespace")).filter(v -> !v.isEmpty()),
                Optional.ofNullable(q.get("pod")).filter(v -> !v.isEmpty()),
                Optional.ofNullable(q.get("uid")).filter(v -> !v.isEmpty())));
    items.sort(Comparator.comparing(e -> instant(e.getLastTimestamp())));
    EventList list =
        new EventListBuilder()
            .withApiVersion("v1")
            .withKind("EventList")
            .withNewMetadata()
            .endMetadata()
            .withItems(items)
            .build();
    send(ex, 200, "application/json", ApiSerialization.SHARED.asJson(list));
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      out.putIfAbsent(
          URLDecoder.decode(k, StandardCharsets.UTF_8),
          URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
    return out;
  }

  private static Instant instant(String ts) {
    try {
      return ts == null ? Instant.MIN : Instant.parse(ts);
    } catch (DateTimeParseException e) {
      return Instant.MIN;
    }
  }

  private static void send(HttpExchange ex, int code, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(code, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(bytes);
    }
  }
}
