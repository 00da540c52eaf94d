package io.jkubelet.agent.parts;

import io.jkubelet.agent.certificates.CertificateManager;
import io.jkubelet.agent.logs.ContainerLogsRoute;
import io.jkubelet.agent.logs.SystemLogRoute;
import io.jkubelet.agent.server.Healthz;
import io.jkubelet.agent.server.HealthzPort;
import io.jkubelet.agent.server.KubeletApi;
import io.jkubelet.agent.server.PodsWithStatus;
import io.jkubelet.agent.server.ReadOnlyServer;
import io.jkubelet.agent.server.Route;
import io.jkubelet.agent.streaming.StreamingRoutes;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Lifecycle.Health;
import io.jkubelet.config.KubeletConfiguration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The node's servers: the kubelet API with its routes (logs, streaming, metrics and stats, and
 * {@code serverTLSBootstrap}'s certificate) and the read-only server, both answering {@code
 * /healthz} with the root's named checks. Builds only; the root starts them, beside the first
 * relist ({@link #starting()}), and waits for them before the node registers ({@link #started()}).
 * Without {@code Dependencies.servesPorts} (hollow nodes) nothing listens: the three lifecycles do
 * nothing.
 */
public final class ServerParts {
  private final PodParts parts;
  private final KubeletApi api;
  private final ReadOnlyServer readOnly;
  private final ExecutorService logReaders = Executors.newVirtualThreadPerTaskExecutor();
  private volatile CompletableFuture<Void> starting;
  private final boolean serves;

  /**
   * The checks of every {@code /healthz} that are not the pods' parts'.
   *
   * @param loop the sync loop's
   * @param runtime the runtime's, as upstream's runtime state: refreshed every few seconds rather
   *     than on every request
   * @param cluster the node's status and the client certificate's in cluster mode, in this order
   */
  public record Checks(
      Supplier<Health> loop, Supplier<Health> runtime, Map<String, Supplier<Health>> cluster) {}

  /**
   * @param serving the serving certificate's manager with {@code serverTLSBootstrap}; else null
   * @param healthzPort the healthz port, which the root started first; the kubelet API hands it the
   *     checks
   */
  public ServerParts(
      PodParts parts, Checks more, CertificateManager serving, HealthzPort healthzPort) {
    this.parts = parts;
    var in = parts.in;
    this.serves = in.deps().servesPorts();
    KubeletConfiguration config = in.options().config();
    Map<String, Supplier<Health>> checks = healthChecks(more);
    readOnly =
        config.server().readOnlyPort() == 0 || !in.deps().servesPorts()
            ? null
            : parts.documents.serve(
                new ReadOnlyServer(
                    config.server().address(),
                    config.server().readOnlyPort(),
                    new PodsWithStatus(
                        parts.podManager::pods, in.statuses()::getPodStatus, parts::annotations),
                    checks,
                    in.events().store() == null
                        ? ReadOnlyServer.Events.NONE
                        : in.events().store()::list,
                    parts.probes::stats));
    api =
        new KubeletApi(
            new KubeletApi.Options(
                in.options().nodeName(),
                in.deps().host().nodeIp(),
                in.options().certDir(),
                config,
                in.apiClient(),
                serving,
                in.deps().time()),
            new Healthz(checks),
            parts::podsWithStatus,
            routes(config),
            in.metrics().caches()::add,
            healthzPort);
  }

  /** The kubelet API's routes beyond its own: logs, metrics and stats, streaming. */
  private List<Route> routes(KubeletConfiguration config) {
    var in = parts.in;
    List<Route> routes = new ArrayList<>();
    if (config.server().handlers().enableDebuggingHandlers()) {
      routes.add(
          new ContainerLogsRoute(
              parts::podsWithStatus,
              uid -> in.statuses().getPodStatus(uid),
              in.runtime(),
              in.deps().time().clock(),
              logReaders));
      if (config.server().handlers().enableSystemLogHandler()) {
        routes.add(new SystemLogRoute(in.options().nodeLogDir(), logReaders));
      }
    }
    routes.addAll(parts.documents.routes());
    routes.add(new io.jkubelet.agent.server.PodTimelineRoute(in.timelines()));
    if (config.server().handlers().enableDebuggingHandlers()) {
      routes.add(StreamingRoutes.forNode(in.runtime(), parts.podManager, parts.cache));
    }
    return routes;
  }

  /** The named checks of every {@code /healthz}, in the order it reports them. */
  private Map<String, Supplier<Health>> healthChecks(Checks more) {
    Map<String, Supplier<Health>> checks = new LinkedHashMap<>();
    checks.put("syncloop", more.loop());
    checks.put("pleg", parts.pleg::healthy);
    checks.put("prober", parts.probes::healthy);
    checks.put("runtime", more.runtime());
    checks.put("events", parts.in.events().lifecycle()::healthy);
    checks.put("eviction", parts.eviction::healthy);
    for (Lifecycle source : parts.sources) {
      checks.put(source.getClass().getSimpleName(), source::healthy);
    }
    checks.putAll(more.cluster());
    return checks;
  }

  /** The kubelet API's certificate: started before the servers, stopped after them. */
  public Lifecycle servingIdentity() {
    return serves ? api.servingIdentity() : Lifecycle.of("serving identity", () -> {}, () -> {});
  }

  /**
   * Starts the kubelet API, then the read-only server (whose /healthz then also says the API
   * listens), on a thread of their own: the servers' TLS set-up (loading the native TLS library)
   * takes a second or more on a busy node, and runs beside the first relist and the pod sources'
   * first lists, which every pod's first sync waits for. Stopping stops both.
   */
  public Lifecycle starting() {
    if (!serves) {
      return Lifecycle.of("servers", () -> {}, logReaders::shutdownNow);
    }
    return Lifecycle.of(
        "servers",
        () ->
            starting =
                CompletableFuture.runAsync(
                    () -> {
                      api.start();
                      if (readOnly != null) {
                        readOnly.start();
                      }
                    },
                    r -> Thread.ofVirtual().name("servers-start").start(r)),
        () -> {
          if (readOnly != null) {
            readOnly.stop();
          }
          api.stop();
          logReaders.shutdownNow();
        });
  }

  /** Waits for {@link #starting()}'s servers: the node registers only once the API listens. */
  public Lifecycle started() {
    if (!serves) {
      return Lifecycle.of("servers started", () -> {}, () -> {});
    }
    return Lifecycle.of(
        "servers started",
        () -> {
          try {
            starting.join();
          } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
          }
        },
        () -> {});
  }

  public KubeletApi api() {
    return api;
  }

  public ReadOnlyServer readOnly() {
    return readOnly;
  }
}
