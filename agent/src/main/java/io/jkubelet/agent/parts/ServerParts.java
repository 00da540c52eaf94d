package io.jkubelet.agent;

import io.jkubelet.agent.client.ClientCertificates;
import io.jkubelet.agent.logs.ContainerLogsRoute;
import io.jkubelet.agent.logs.SystemLogRoute;
import io.jkubelet.agent.node.NodeStatusManager;
import io.jkubelet.agent.server.Healthz;
import io.jkubelet.agent.server.KubeletApi;
import io.jkubelet.agent.server.PodsWithStatus;
import io.jkubelet.agent.server.ReadOnlyServer;
import io.jkubelet.agent.server.Route;
import io.jkubelet.agent.streaming.StreamingRoutes;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Lifecycle.Health;
import io.jkubelet.agent.util.Memo;
import io.jkubelet.config.KubeletConfiguration;
import java.time.Duration;
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
 * The servers' half of the composition root: the kubelet API with its routes (logs, streaming,
 * metrics and stats, and {@code serverTLSBootstrap}'s certificate), the read-only server, and the
 * named checks of every {@code /healthz}. Builds only; {@link Agent} starts them, beside the first
 * relist ({@link #starting()}) and waited for before the node registers ({@link #started()}).
 */
final class AgentServers {
  static final Duration RUNTIME_CHECK_TTL = Duration.ofSeconds(5);

  private final AgentParts parts;
  private final KubeletApi api;
  private final ReadOnlyServer readOnly;
  private final ExecutorService logReaders = Executors.newVirtualThreadPerTaskExecutor();
  private volatile CompletableFuture<Void> starting;

  AgentServers(AgentParts parts, ClientCertificates certificates, NodeStatusManager node) {
    this.parts = parts;
    var in = parts.in;
    KubeletConfiguration config = in.options().config();
    Map<String, Supplier<Health>> checks = healthChecks(certificates, node);
    readOnly =
        config.server().readOnlyPort() == 0
            ? null
            : parts.documents.serve(
                new ReadOnlyServer(
                    config.server().address(),
                    config.server().readOnlyPort(),
                    new PodsWithStatus(parts.podManager::pods, in.statuses()::getPodStatus),
                    checks,
                    in.events().store() == null
                        ? (namespace, pod, uid) -> List.of()
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
                certificates == null || node == null
                    ? null
                    : certificates.serving(in.apiClient(), node),
                in.deps().time()),
            new Healthz(checks),
            parts::podsWithStatus,
            routes(config),
            in.metrics().caches()::add);
  }

  /** The kubelet API's routes beyond its own: logs, metrics and stats, streaming. */
  private List<Route> routes(KubeletConfiguration config) {
    var in = parts.in;
    List<Route> routes = new ArrayList<>();
    if (config.server().enableDebuggingHandlers()) {
      routes.add(
          new ContainerLogsRoute(
              parts::podsWithStatus,
              uid -> in.statuses().getPodStatus(uid),
              in.runtime(),
              in.deps().time().clock(),
              logReaders));
      if (config.server().enableSystemLogHandler()) {
        routes.add(new SystemLogRoute(in.options().nodeLogDir(), logReaders));
      }
    }
    routes.addAll(parts.documents.routes());
    if (config.server().enableDebuggingHandlers()) {
      routes.add(StreamingRoutes.forNode(in.runtime(), parts.podManager));
    }
    return routes;
  }

  /** The named checks of every {@code /healthz}. */
  private Map<String, Supplier<Health>> healthChecks(
      ClientCertificates certificates, NodeStatusManager node) {
    var in = parts.in;
    Map<String, Supplier<Health>> checks = new LinkedHashMap<>();
    checks.put("syncloop", parts.loop::healthy);
    checks.put("pleg", parts.pleg::healthy);
    checks.put("prober", parts.probes::healthy);
    // As upstream's runtime state, refreshed every 5 s rather than on every request.
    checks.put(
        "runtime", new Memo<>(RUNTIME_CHECK_TTL, in.deps().time().clock(), this::runtimeHealth));
    checks.put("events", in.events().lifecycle()::healthy);
    checks.put("eviction", parts.eviction::healthy);
    for (Lifecycle source : parts.sources) {
      checks.put(source.getClass().getSimpleName(), source::healthy);
    }
    if (node != null) {
      checks.put("node", node::healthy);
      checks.put("client-certificate", certificates::healthy);
    }
    return checks;
  }

  Health runtimeHealth() {
    try {
      parts.in.runtime().version();
      return Health.OK;
    } catch (RuntimeException e) {
      return Health.failing("container runtime is down: " + e.getMessage());
    }
  }

  /** The kubelet API's certificate: started before the servers, stopped after them. */
  Lifecycle servingIdentity() {
    return api.servingIdentity();
  }

  /**
   * Starts the kubelet API, then the read-only server (whose /healthz then also says the API
   * listens), on a thread of their own: the servers' TLS set-up (loading the native TLS library)
   * takes a second or more on a busy node, and runs beside the first relist and the pod sources'
   * first lists, which every pod's first sync waits for. Stopping stops both.
   */
  Lifecycle starting() {
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
  Lifecycle started() {
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

  KubeletApi api() {
    return api;
  }

  ReadOnlyServer readOnly() {
    return readOnly;
  }
}
