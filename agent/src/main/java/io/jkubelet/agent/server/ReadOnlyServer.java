package io.jkubelet.agent.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.jkubelet.agent.util.Canonical;
import io.jkubelet.agent.util.Lifecycle;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read-only port: {@code GET /healthz} ("ok", or 500 naming each unhealthy subsystem) and
 * {@code GET /pods} (a v1 PodList of the pods this node runs, with the status jkubelet computed).
 * Requests run on virtual threads.
 */
public final class ReadOnlyServer implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(ReadOnlyServer.class);

  private final String address;
  private final int port;
  private final Supplier<List<Pod>> pods;
  private final Map<String, Supplier<Health>> checks;
  private HttpServer server;
  private ExecutorService executor;

  /**
   * @param pods the pods with their current status
   * @param checks named health checks, in the order /healthz reports them
   */
  public ReadOnlyServer(
      String address, int port, Supplier<List<Pod>> pods, Map<String, Supplier<Health>> checks) {
    this.address = address;
    this.port = port;
    this.pods = pods;
    this.checks = new LinkedHashMap<>(checks);
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
    StringBuilder failed = new StringBuilder();
    checks.forEach(
        (name, check) -> {
          Health h;
          try {
            h = check.get();
          } catch (RuntimeException e) {
            h = Health.failing(e.toString());
          }
          if (!h.ok()) {
            failed.append("[-]").append(name).append(" failed: ").append(h.message()).append('\n');
          }
        });
    if (failed.isEmpty()) {
      send(ex, 200, "text/plain; charset=utf-8", "ok");
    } else {
      send(ex, 500, "text/plain; charset=utf-8", failed + "healthz check failed\n");
    }
  }

  private void pods(HttpExchange ex) throws IOException {
    if (!"GET".equals(ex.getRequestMethod())) {
      send(ex, 405, "text/plain", "method not allowed\n");
      return;
    }
    PodList list =
        new PodListBuilder()
            .withApiVersion("v1")
            .withKind("PodList")
            .withNewMetadata()
            .endMetadata()
            .withItems(pods.get())
            .build();
    send(ex, 200, "application/json", Canonical.SERIALIZATION.asJson(list));
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
