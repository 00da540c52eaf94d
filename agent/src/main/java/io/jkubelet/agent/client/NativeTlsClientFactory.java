package io.jkubelet.agent.client;

import io.fabric8.kubernetes.client.http.TlsVersion;
import io.fabric8.kubernetes.client.vertx.TlsWarmup;
import io.fabric8.kubernetes.client.vertx.VertxHttpClient;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientBuilder;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory;
import io.jkubelet.agent.util.NativeTls;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.spi.tls.SslContextFactory;
import io.vertx.ext.web.client.WebClientOptions;
import java.lang.reflect.Method;
import java.util.Arrays;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * fabric8's Vert.x client factory with BoringSSL (Netty's tcnative, which the kubelet server
 * already uses) as the API clients' TLS engine where its native library loads, else the JDK's as
 * fabric8 sets it.
 *
 * <p>Why: with the launcher's client compiler, a handshake in the JDK's provider costs about 28 ms
 * of CPU and its AES decrypts about 9 MB/s; every watch is a connection of its own, so a start-up
 * makes a dozen handshakes on the two shared event loops while the node registers and its pods are
 * listed. In BoringSSL a handshake costs about a millisecond.
 *
 * <p>The same key and trust managers as fabric8's: the client certificate (or none), the cluster's
 * CA or the JDK's default trust, and the server's name checked against its certificate (Vert.x sets
 * the endpoint identification on the engine, which Netty's engine passes to the trust manager).
 * fabric8 gives its factory only the options, so the builder hands its managers over for the
 * duration of its {@code build()}.
 *
 * <p>A client whose key manager is a {@link ClientIdentity} (the node's rotating certificate) gets
 * a context made here even without BoringSSL (then the JDK's), so that its sessions can be
 * forgotten, and has its connections tracked, so that a rotation can close them.
 */
final class NativeTlsClientFactory extends VertxHttpClientFactory {
  private static final Logger log = LoggerFactory.getLogger(NativeTlsClientFactory.class);
  private static final ThreadLocal<Builder> BUILDING = new ThreadLocal<>();

  private final Vertx vertx;

  NativeTlsClientFactory(Vertx vertx) {
    super(vertx);
    this.vertx = vertx;
    // fabric8 builds a JDK TLS context per client up front by default; this factory replaces it.
    setTlsWarmup(TlsWarmup.OFF);
  }

  @Override
  public VertxHttpClientBuilder<VertxHttpClientFactory> newBuilder() {
    return new Builder(this, vertx);
  }

  @Override
  protected void additionalConfig(WebClientOptions options) {
    Builder b = BUILDING.get();
    if (b == null || !options.isSsl()) {
      return;
    }
    KeyManager[] keys = b.getKeyManagers();
    ClientIdentity identity = identity(keys);
    if (!Native.AVAILABLE && identity == null) {
      return;
    }
    TrustManager[] trust = b.getTrustManagers();
    String[] protocols = protocols(b.getTlsVersions());
    SslProvider provider = Native.AVAILABLE ? SslProvider.OPENSSL : SslProvider.JDK;
    // Vert.x's settings (ALPN, ciphers) are ignored, as fabric8's own context factory does.
    SslContextFactory contexts =
        () -> {
          SslContextBuilder ctx = SslContextBuilder.forClient().sslProvider(provider);
          if (keys != null && keys.length > 0) {
            ctx.keyManager(keys[0]);
          }
          if (trust != null && trust.length > 0) {
            ctx.trustManager(trust[0]);
          }
          if (protocols != null) {
            ctx.protocols(protocols);
          }
          SslContext built = ctx.build();
          if (identity != null) {
            // A resumed session presents the identity it was made with: none are kept where
            // BoringSSL allows it, and the JDK's are forgotten after each rotation.
            if (built.sessionContext() instanceof OpenSslSessionContext openssl) {
              openssl.setSessionCacheEnabled(false);
            }
            identity.sessions(built.sessionContext());
          }
          return built;
        };
    options.setSslEngineOptions(
        provider == SslProvider.OPENSSL ? new NativeEngine(contexts) : new JdkEngine(contexts));
  }

  /** The rotating identity among a client's key managers, or null. */
  private static ClientIdentity identity(KeyManager[] keys) {
    return keys != null && keys.length > 0 && keys[0] instanceof ClientIdentity i ? i : null;
  }

  /**
   * Has {@code identity} track the connections of {@code client}: fabric8 keeps its Vert.x client
   * behind a package-private accessor, read here by reflection once per client built. Where that
   * fails (another fabric8), connections made before a rotation stay open until they close on their
   * own, with a warning.
   */
  private static void trackConnections(VertxHttpClient<?> client, ClientIdentity identity) {
    if (Connections.GET_CLIENT == null) {
      return;
    }
    try {
      HttpClient vertx = (HttpClient) Connections.GET_CLIENT.invoke(client);
      vertx.connectionHandler(
          c -> {
            identity.track(c, c::close);
            c.closeHandler(v -> identity.untrack(c));
          });
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn(
          "API clients: cannot track the connections of a client ({}); after a certificate"
              + " rotation its open connections keep the old certificate",
          e.toString());
    }
  }

  /** fabric8's accessor of its Vert.x client, found once. */
  private static final class Connections {
    static final Method GET_CLIENT = getClient();

    private static Method getClient() {
      try {
        Method m = VertxHttpClient.class.getDeclaredMethod("getClient");
        m.setAccessible(true);
        return m;
      } catch (ReflectiveOperationException | RuntimeException e) {
        log.warn(
            "API clients: fabric8's Vert.x client cannot be reached ({}); after a certificate"
                + " rotation open connections keep the old certificate",
            e.toString());
        return null;
      }
    }
  }

  private static String[] protocols(TlsVersion[] versions) {
    return versions == null || versions.length == 0
        ? null
        : Arrays.stream(versions).map(TlsVersion::javaName).toArray(String[]::new);
  }

  /** Whether BoringSSL is there, decided (and logged) once, when the first client is built. */
  private static final class Native {
    static final boolean AVAILABLE = NativeTls.provider(log, "API clients") == SslProvider.OPENSSL;
  }

  /** The builder: hands its managers to the factory while it builds. */
  private static final class Builder extends VertxHttpClientBuilder<VertxHttpClientFactory> {
    private final Vertx vertx;

    Builder(VertxHttpClientFactory factory, Vertx vertx) {
      super(factory, vertx);
      this.vertx = vertx;
    }

    @Override
    public VertxHttpClient<VertxHttpClientFactory> build() {
      BUILDING.set(this);
      try {
        VertxHttpClient<VertxHttpClientFactory> client = super.build();
        ClientIdentity identity = identity(getKeyManagers());
        if (identity != null) {
          trackConnections(client, identity);
        }
        return client;
      } finally {
        BUILDING.remove();
      }
    }

    @Override
    protected VertxHttpClientBuilder<VertxHttpClientFactory> newInstance(
        VertxHttpClientFactory factory) {
      return new Builder(factory, vertx);
    }
  }

  /** Vert.x's JDK engine with the context made here (for a rotating identity without BoringSSL). */
  private static final class JdkEngine extends JdkSSLEngineOptions {
    private final SslContextFactory factory;

    JdkEngine(SslContextFactory factory) {
      this.factory = factory;
    }

    @Override
    public SslContextFactory sslContextFactory() {
      return factory;
    }

    @Override
    public JdkSSLEngineOptions copy() {
      return this;
    }
  }

  /** Vert.x's OpenSSL engine with the context made from fabric8's managers. */
  private static final class NativeEngine extends OpenSSLEngineOptions {
    private final SslContextFactory factory;

    NativeEngine(SslContextFactory factory) {
      this.factory = factory;
    }

    @Override
    public SslContextFactory sslContextFactory() {
      return factory;
    }

    @Override
    public OpenSSLEngineOptions copy() {
      return this;
    }
  }
}
