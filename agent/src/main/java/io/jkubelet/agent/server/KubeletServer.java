package io.jkubelet.agent.server;

import io.jkubelet.agent.server.auth.Authenticator;
import io.jkubelet.agent.server.auth.Authorizer;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.NativeTls;
import io.jkubelet.agent.util.NettyLoops;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet API: HTTPS on Netty, every request authenticated and authorized (as upstream's {@code
 * InstallAuthFilter}) before the first matching {@link Route} serves it.
 *
 * <p>Threads: none of its own. It accepts and serves on the process's shared Netty loops ({@link
 * NettyLoops}); the authentication and authorization of each request (which may call the API
 * server) run on a virtual thread. Routes run as {@link Route} says. In plain HTTP with every
 * request let in, it is also the healthz port and the read-only port ({@link ReadOnlyServer}).
 */
public final class KubeletServer implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(KubeletServer.class);

  private final ServerOptions options;
  private final Authenticator authenticator;
  private final Authorizer authorizer;
  private final List<Route> routes;
  private EventLoopGroup workers;
  private ExecutorService authExecutor;
  private ChannelGroup channels;
  private Channel server;

  /**
   * @param routes the routes, asked in this order
   */
  public KubeletServer(
      ServerOptions options,
      Authenticator authenticator,
      Authorizer authorizer,
      List<Route> routes) {
    this.options = options;
    this.authenticator = authenticator;
    this.authorizer = authorizer;
    this.routes = List.copyOf(routes);
  }

  /**
   * Plain HTTP on {@code address}:{@code port} that lets every request in (anonymous, always
   * allowed), as upstream's healthz and read-only ports: {@link HealthzPort}, {@link
   * ReadOnlyServer}.
   */
  public static KubeletServer open(String address, int port, List<Route> routes) {
    return new KubeletServer(
        ServerOptions.plain(address, port, ""),
        new Authenticator(true, Optional.empty()),
        Authorizer.ALWAYS_ALLOW,
        routes);
  }

  @Override
  public void start() {
    SslContext ssl = sslContext();
    // The process's loops accept and serve, beside the probes' client and any other server.
    workers = NettyLoops.shared();
    authExecutor = Executors.newVirtualThreadPerTaskExecutor();
    channels = new DefaultChannelGroup("kubelet-server", GlobalEventExecutor.INSTANCE);
    Router router = new Router(routes, authenticator, authorizer, options.nodeName(), authExecutor);
    try {
      server =
          new ServerBootstrap()
              .group(workers)
              .channel(NioServerSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      channels.add(ch);
                      if (ssl != null) {
                        ch.pipeline().addLast("ssl", ssl.newHandler(ch.alloc()));
                      }
                      ch.pipeline()
                          .addLast("http", new HttpServerCodec())
                          .addLast("aggregator", new HttpObjectAggregator(1 << 20))
                          .addLast("chunked", new ChunkedWriteHandler())
                          .addLast("router", router);
                    }
                  })
              .bind(options.address(), options.port())
              .sync()
              .channel();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop();
      throw new IllegalStateException("kubelet server: interrupted while binding", e);
    } catch (RuntimeException e) {
      stop();
      throw new IllegalStateException(
          "cannot listen on " + options.address() + ":" + options.port() + ": " + e.getMessage(),
          e);
    }
    log.info(
        "kubelet server: listening on {}:{} ({})",
        options.address(),
        port(),
        options.keys() == null ? "HTTP" : "HTTPS");
  }

  private SslContext sslContext() {
    if (options.keys() == null) {
      return null;
    }
    try {
      // The key manager is asked at each handshake (Netty's OpenSSL engine does not cache what a
      // plain key manager returns), so a new serving certificate is presented without a restart.
      SslContextBuilder b = SslContextBuilder.forServer(options.keys());
      if (!options.clientCAs().isEmpty()) {
        // Chains accepted once are not verified again while they are valid.
        b.trustManager(VerifiedChains.of(options.clientCAs())).clientAuth(ClientAuth.OPTIONAL);
      }
      TlsPolicy tls = options.tls();
      b.protocols(tls.protocols());
      if (!tls.ciphers().isEmpty()) {
        // Suites this engine lacks are left out (BoringSSL has no RC4 or 3DES, for one).
        b.ciphers(tls.ciphers(), SupportedCipherSuiteFilter.INSTANCE);
      }
      SslContext ctx = b.sslProvider(NativeTls.provider(log, "kubelet server")).build();
      if (!tls.ciphers().isEmpty()) {
        List<String> left =
            tls.ciphers().stream().filter(c -> !ctx.cipherSuites().contains(c)).toList();
        if (!left.isEmpty()) {
          log.info("kubelet server: the TLS engine does not offer the cipher suites {}", left);
        }
      }
      return ctx;
    } catch (SSLException | GeneralSecurityException e) {
      throw new IllegalStateException("kubelet server: TLS setup failed: " + e.getMessage(), e);
    }
  }

  /** The bound port (useful when 0 asked for an ephemeral one). */
  public int port() {
    return server == null ? options.port() : ((InetSocketAddress) server.localAddress()).getPort();
  }

  @Override
  public void stop() {
    if (server != null) {
      server.close().syncUninterruptibly();
      server = null;
    }
    if (channels != null) {
      channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
    if (authExecutor != null) {
      authExecutor.shutdownNow();
    }
  }

  @Override
  public Health healthy() {
    return server != null && server.isActive()
        ? Health.OK
        : Health.failing("kubelet server is not listening");
  }
}
