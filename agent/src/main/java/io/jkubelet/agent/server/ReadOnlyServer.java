package io.jkubelet.agent.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.prober.ProbeWorker;
import io.jkubelet.agent.util.Lifecycle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The read-only port: {@code GET /healthz} ("ok", or 500 naming each unhealthy subsystem, and
 * {@code /healthz/ping} and {@code /healthz/<check>}), {@code GET /pods} (a v1 PodList of the pods
 * this node runs, with the status jkubelet computed), {@code GET /events} (a v1 EventList of the
 * events kept locally, oldest first by lastTimestamp, filtered by the query parameters {@code
 * namespace}, {@code pod} and {@code uid}) and {@code GET /probes} (how regularly each probe ran),
 * and the documents added with {@link #serve} (the metrics and the stats summary, as upstream's
 * read-only port serves them).
 *
 * <p>It is a {@link KubeletServer} in plain HTTP that lets every request in, as upstream's
 * read-only port has no authentication: the same routes and answers as the kubelet API ({@link
 * CoreRoutes}, {@link DocumentRoute}), on the process's shared Netty loops. Documents, events and
 * probes are made on a virtual thread per request.
 */
public final class ReadOnlyServer implements Lifecycle {
  private static final ObjectMapper STATS_JSON = new ObjectMapper();
  private static final Executor PER_REQUEST =
      r -> Thread.ofVirtual().name("read-only-request").start(r);

  private final String address;
  private final int port;
  private final Supplier<List<Pod>> pods;
  private final Map<String, Supplier<Health>> checks;
  private final Events events;
  private final Supplier<List<ProbeWorker.Stats>> probes;
  private final Map<String, Resource> resources = new LinkedHashMap<>();
  private KubeletServer server;

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
    List<Route> routes = new ArrayList<>();
    routes.add(new CoreRoutes(new Healthz(checks), pods, null));
    routes.add(new EventsRoute(events, PER_REQUEST));
    routes.add(new DocumentRoute("/probes", new Resource("application/json", this::probesJson)));
    resources.forEach((path, r) -> routes.add(new DocumentRoute(path, r)));
    KubeletServer s = KubeletServer.open(address, port, routes);
    try {
      s.start();
    } catch (IllegalStateException e) {
      throw new IllegalStateException(
          "cannot listen on " + address + ":" + port + " for the read-only port: " + e.getMessage(),
          e);
    }
    server = s;
  }

  /** The bound port (useful when 0 asked for an ephemeral one). */
  public int port() {
    return server == null ? port : server.port();
  }

  @Override
  public void stop() {
    if (server != null) {
      server.stop();
    }
  }

  @Override
  public Health healthy() {
    return server != null ? server.healthy() : Health.failing("read-only server is not started");
  }

  /**
   * Every probe worker: its pod, container, type and period, how many attempts ran, the mean and
   * the worst interval between attempts (milliseconds), and the ticks skipped because an attempt
   * was still running. For operators and the probe benchmark.
   */
  private byte[] probesJson() {
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
    try {
      return STATS_JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("probes: " + e.getMessage(), e);
    }
  }
}
