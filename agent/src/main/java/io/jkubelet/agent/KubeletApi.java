package io.jkubelet.agent;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.logs.ContainerLogsRoute;
import io.jkubelet.agent.logs.SystemLogRoute;
import io.jkubelet.agent.metrics.CacheCollector;
import io.jkubelet.agent.server.CoreRoutes;
import io.jkubelet.agent.server.Healthz;
import io.jkubelet.agent.server.KubeletServer;
import io.jkubelet.agent.server.Route;
import io.jkubelet.agent.server.ServerOptions;
import io.jkubelet.agent.server.ServingCerts;
import io.jkubelet.agent.server.ServingIdentity;
import io.jkubelet.agent.server.auth.Authenticator;
import io.jkubelet.agent.server.auth.Authorizer;
import io.jkubelet.agent.server.auth.TokenReviewWebhook;
import io.jkubelet.agent.server.auth.TokenReviewer;
import io.jkubelet.agent.server.auth.WebhookAuthorizer;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.config.Durations;
import io.jkubelet.config.KubeletConfiguration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The kubelet API as the agent runs it: the HTTPS server on {@code port} with its certificate,
 * authentication, authorization and routes ({@code /healthz*}, {@code /pods}, {@code /configz},
 * {@code /containerLogs} and the routes other packages add), and the plain {@code /healthz} on
 * {@code healthzPort}. Reading certificates is I/O, so it happens in {@link #start()}.
 */
final class KubeletApi implements Lifecycle {
  private final Setup setup;
  private final Healthz healthz;
  private final Supplier<List<Pod>> pods;
  private final List<Route> extra;
  private ExecutorService logReaders;
  private KubeletServer server;
  private KubeletServer healthzServer;
  private ServingIdentity identity;

  /** The webhooks, once {@link #start()} made them; read by the cache gauges. */
  private volatile TokenReviewWebhook tokenReviews;

  private volatile WebhookAuthorizer authorizations;

  /**
   * @param pods the node's pods with their status
   * @param extra routes of other packages (streaming, metrics), asked after the built-in ones
   * @param caches where the webhooks' answer caches are shown, when there are webhooks
   */
  KubeletApi(
      Setup setup,
      Healthz healthz,
      Supplier<List<Pod>> pods,
      List<Route> extra,
      CacheCollector caches) {
    this.setup = setup;
    this.healthz = healthz;
    this.pods = pods;
    this.extra = List.copyOf(extra);
    KubeletConfiguration config = setup.options().config();
    if (setup.cluster() != null && config.server().authentication().webhookEnabled()) {
      caches.add(
          "token_review_cache",
          () -> tokenReviews == null ? 0 : tokenReviews.cachedEntries(),
          TokenReviewWebhook.CACHE_CAPACITY,
          () -> tokenReviews == null ? 0 : tokenReviews.cacheEvictions());
    }
    if (setup.cluster() != null && config.server().authorization().mode().equals("Webhook")) {
      caches.add(
          "subject_access_review_cache",
          () -> authorizations == null ? 0 : authorizations.cachedEntries(),
          WebhookAuthorizer.CACHE_CAPACITY,
          () -> authorizations == null ? 0 : authorizations.cacheEvictions());
    }
  }

  @Override
  public void start() {
    KubeletConfiguration config = setup.options().config();
    logReaders = Executors.newVirtualThreadPerTaskExecutor();
    List<Route> routes = new ArrayList<>();
    routes.add(new CoreRoutes(healthz, pods, () -> configz(config)));
    if (config.server().enableDebuggingHandlers()) {
      routes.add(
          new ContainerLogsRoute(
              pods,
              uid -> setup.statuses().getPodStatus(uid),
              setup.runtime(),
              setup.time().clock(),
              logReaders));
      if (config.server().enableSystemLogHandler()) {
        routes.add(new SystemLogRoute(setup.options().nodeLogDir(), logReaders));
      }
    }
    routes.addAll(extra);
    identity = identity(config);
    identity.start();
    server =
        new KubeletServer(
            new ServerOptions(
                config.server().address(),
                config.server().port(),
                null,
                clientCAs(config),
                setup.options().nodeName(),
                identity.keyManager()),
            authenticator(config),
            authorizer(config),
            routes);
    server.start();
    if (config.server().healthzPort() > 0) {
      healthzServer =
          new KubeletServer(
              new ServerOptions(
                  config.server().healthzBindAddress(),
                  config.server().healthzPort(),
                  null,
                  List.of(),
                  setup.options().nodeName()),
              new Authenticator(true, Optional.empty()),
              Authorizer.ALWAYS_ALLOW,
              List.of(new CoreRoutes(healthz, null, null)));
      healthzServer.start();
    }
  }

  /**
   * The configuration's certificate files, else a self-signed certificate in the cert dir; with
   * {@code serverTLSBootstrap}, the CSR API's certificate once issued.
   */
  private ServingIdentity identity(KubeletConfiguration config) {
    ServingCerts files = null;
    try {
      if (!config.server().tlsCertFile().isEmpty()) {
        files =
            ServingCerts.read(
                Path.of(config.server().tlsCertFile()),
                Path.of(config.server().tlsPrivateKeyFile()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("kubelet server: serving certificate: " + e.getMessage(), e);
    }
    return new ServingIdentity(
        files,
        setup.options().certDir(),
        setup.options().nodeName(),
        List.of(setup.host().nodeIp()),
        setup.cluster() == null ? null : setup.cluster().servingCertificate(),
        setup.time());
  }

  private static List<java.security.cert.X509Certificate> clientCAs(KubeletConfiguration config) {
    String file = config.server().authentication().clientCAFile();
    try {
      return file.isEmpty() ? List.of() : ServingCerts.readCerts(Path.of(file));
    } catch (IOException e) {
      throw new UncheckedIOException("kubelet server: client CA file: " + e.getMessage(), e);
    }
  }

  /** Upstream's chain; anonymous requests are never allowed under authorization mode Webhook. */
  private Authenticator authenticator(KubeletConfiguration config) {
    var a = config.server().authentication();
    Optional<TokenReviewer> tokens = Optional.empty();
    if (a.webhookEnabled()) {
      tokenReviews =
          new TokenReviewWebhook(
              client("authentication"), setup.time().clock(), a.webhookCacheTTL());
      tokens = Optional.of(tokenReviews);
    }
    boolean webhookAuthz = config.server().authorization().mode().equals("Webhook");
    return new Authenticator(a.anonymous() && !webhookAuthz, tokens);
  }

  private Authorizer authorizer(KubeletConfiguration config) {
    var z = config.server().authorization();
    if (z.mode().equals("AlwaysAllow")) {
      return Authorizer.ALWAYS_ALLOW;
    }
    authorizations =
        new WebhookAuthorizer(
            client("authorization"),
            setup.time().clock(),
            z.cacheAuthorizedTTL(),
            z.cacheUnauthorizedTTL());
    return authorizations;
  }

  private io.fabric8.kubernetes.client.KubernetesClient client(String what) {
    if (setup.cluster() == null) {
      throw new IllegalStateException(
          "no client provided, cannot use webhook " + what + " (standalone mode)");
    }
    return setup.cluster().client();
  }

  private static final ObjectMapper CONFIGZ =
      new ObjectMapper()
          .registerModule(
              new SimpleModule()
                  .addSerializer(
                      Duration.class,
                      new JsonSerializer<>() {
                        @Override
                        public void serialize(Duration d, JsonGenerator g, SerializerProvider p)
                            throws IOException {
                          g.writeString(Durations.format(d));
                        }
                      }));

  /** {@code /configz}: {@code {"kubeletconfig": {...}}}, as upstream. */
  private static String configz(KubeletConfiguration config) {
    try {
      return CONFIGZ.writeValueAsString(Map.of("kubeletconfig", config));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The HTTPS port it listens on (useful when 0 asked for a free one); 0 before start. */
  int port() {
    return server == null ? 0 : server.port();
  }

  @Override
  public void stop() {
    if (healthzServer != null) {
      healthzServer.stop();
    }
    if (server != null) {
      server.stop();
    }
    if (identity != null) {
      identity.stop();
    }
    if (logReaders != null) {
      logReaders.shutdownNow();
    }
  }

  @Override
  public Health healthy() {
    return server == null ? Health.failing("kubelet API is not started") : server.healthy();
  }
}
