package io.jkubelet.agent.server;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.certificates.CertificateManager;
import io.jkubelet.agent.server.auth.Authenticator;
import io.jkubelet.agent.server.auth.Authorizer;
import io.jkubelet.agent.server.auth.TokenReviewWebhook;
import io.jkubelet.agent.server.auth.TokenReviewer;
import io.jkubelet.agent.server.auth.WebhookAuthorizer;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Time;
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
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet API as the agent runs it: the HTTPS server on {@code port} with its certificate,
 * authentication, authorization and routes ({@code /healthz*}, {@code /pods}, {@code /configz}, and
 * the routes other packages add: logs, streaming, metrics), and the plain {@code /healthz} on
 * {@code healthzPort}. Reading certificates is I/O, so it happens in {@link #start()}.
 */
public final class KubeletApi implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(KubeletApi.class);
  private final Options options;
  private final Healthz healthz;
  private final Supplier<List<Pod>> pods;
  private final List<Route> extra;
  private KubeletServer server;
  private final HealthzPort healthzPort;
  private volatile ServingIdentity identity;

  /** The webhooks, once {@link #start()} made them; read by the cache gauges. */
  private volatile TokenReviewWebhook tokenReviews;

  private volatile WebhookAuthorizer authorizations;

  /**
   * What the API serves with.
   *
   * @param nodeName the node's name, in a self-signed certificate
   * @param nodeIp the node's IP, in a self-signed certificate
   * @param certDir where a self-signed certificate is kept
   * @param config the server's settings ({@code /configz} shows all of it)
   * @param client for the webhooks' reviews; null standalone
   * @param serving the serving certificate from the CSR API ({@code serverTLSBootstrap}), started
   *     and stopped with the API; null without it
   * @param time the clock of the webhooks' caches and of the self-signed certificate's renewal
   */
  public record Options(
      String nodeName,
      String nodeIp,
      Path certDir,
      KubeletConfiguration config,
      KubernetesClient client,
      CertificateManager serving,
      Time time) {}

  /** Where the webhooks' answer caches are shown: a cache's name, size, capacity, evictions. */
  @FunctionalInterface
  public interface Caches {
    void add(String name, IntSupplier entries, int capacity, LongSupplier evictions);
  }

  /**
   * @param pods the node's pods with their status
   * @param extra routes of other packages (logs, streaming, metrics), asked after the built-in ones
   * @param caches where the webhooks' answer caches are shown, when there are webhooks
   * @param healthzPort the healthz port, which may be serving already (the root starts it first);
   *     this API hands it the checks and stops it
   */
  public KubeletApi(
      Options options,
      Healthz healthz,
      Supplier<List<Pod>> pods,
      List<Route> extra,
      Caches caches,
      HealthzPort healthzPort) {
    this.options = options;
    this.healthzPort = healthzPort;
    this.healthz = healthz;
    this.pods = pods;
    this.extra = List.copyOf(extra);
    KubeletConfiguration config = options.config();
    if (options.client() != null && config.server().authentication().webhookEnabled()) {
      caches.add(
          "token_review_cache",
          () -> tokenReviews == null ? 0 : tokenReviews.cachedEntries(),
          TokenReviewWebhook.CACHE_CAPACITY,
          () -> tokenReviews == null ? 0 : tokenReviews.cacheEvictions());
    }
    if (options.client() != null && config.server().authorization().mode().equals("Webhook")) {
      caches.add(
          "subject_access_review_cache",
          () -> authorizations == null ? 0 : authorizations.cachedEntries(),
          WebhookAuthorizer.CACHE_CAPACITY,
          () -> authorizations == null ? 0 : authorizations.cacheEvictions());
    }
  }

  @Override
  public void start() {
    KubeletConfiguration config = options.config();
    List<Route> routes = new ArrayList<>();
    routes.add(new CoreRoutes(healthz, pods, () -> configz(config)));
    routes.addAll(extra);
    if (identity == null) {
      throw new IllegalStateException("the serving identity is not started");
    }
    server =
        new KubeletServer(
            new ServerOptions(
                config.server().address(),
                config.server().port(),
                null,
                clientCAs(config),
                options.nodeName(),
                identity.keyManager(),
                tls(config)),
            authenticator(config),
            authorizer(config),
            routes);
    server.start();
    healthzPort.serve(healthz);
    healthzPort.start();
  }

  /** The kubelet API's TLS, from {@code tlsMinVersion} and {@code tlsCipherSuites}. */
  private static TlsPolicy tls(KubeletConfiguration config) {
    List<String> ciphers = config.server().tls().tlsCipherSuites();
    TlsPolicy.warnInsecure(ciphers, log);
    return TlsPolicy.of(config.server().tls().tlsMinVersion(), ciphers);
  }

  /**
   * The certificate the API presents, as a lifecycle of its own that starts before the API: the
   * configuration's files, or a self-signed certificate kept in the cert dir and renewed at 80 % of
   * its life, or with {@code serverTLSBootstrap} the CSR API's once issued (its rotation runs while
   * this runs).
   */
  public Lifecycle servingIdentity() {
    return new Lifecycle() {
      @Override
      public void start() {
        identity = identity(options.config());
        identity.start();
      }

      @Override
      public void stop() {
        if (identity != null) {
          identity.stop();
        }
      }

      @Override
      public Health healthy() {
        return identity == null ? Health.failing("not started") : identity.healthy();
      }

      @Override
      public String toString() {
        return "serving identity";
      }
    };
  }

  /**
   * The configuration's certificate files, else a self-signed certificate in the cert dir; with
   * {@code serverTLSBootstrap}, the CSR API's certificate once issued.
   */
  private ServingIdentity identity(KubeletConfiguration config) {
    ServingCerts files = null;
    try {
      if (!config.server().tls().tlsCertFile().isEmpty()) {
        files =
            ServingCerts.read(
                Path.of(config.server().tls().tlsCertFile()),
                Path.of(config.server().tls().tlsPrivateKeyFile()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("kubelet server: serving certificate: " + e.getMessage(), e);
    }
    return new ServingIdentity(
        files,
        options.certDir(),
        options.nodeName(),
        List.of(options.nodeIp()),
        options.serving(),
        options.time());
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
              client("authentication"), options.time().clock(), a.webhookCacheTTL());
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
            options.time().clock(),
            z.cacheAuthorizedTTL(),
            z.cacheUnauthorizedTTL());
    return authorizations;
  }

  private io.fabric8.kubernetes.client.KubernetesClient client(String what) {
    if (options.client() == null) {
      throw new IllegalStateException(
          "no client provided, cannot use webhook " + what + " (standalone mode)");
    }
    return options.client();
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
  public int port() {
    return server == null ? 0 : server.port();
  }

  @Override
  public void stop() {
    healthzPort.stop();
    if (server != null) {
      server.stop();
    }
  }

  @Override
  public Health healthy() {
    return server == null ? Health.failing("kubelet API is not started") : server.healthy();
  }
}
