package io.jkubelet.agent.prober;

import io.jkubelet.agent.util.HostPort;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.NettyLoops;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * The HTTP client of probes and lifecycle hooks, as upstream's ({@code pkg/probe/http}, v1.20):
 * each GET has a connection of its own, closed after it ({@code DisableKeepAlives}, so an attempt
 * also tests that the server still accepts); HTTPS trusts any certificate ({@code
 * InsecureSkipVerify}); a {@code Host} header that the probe names is sent as given; at most {@code
 * maxBody} bytes of the body are read; and the attempt, body included, ends by its timeout. Errors
 * are worded as Go's client words them.
 *
 * <p>One event-loop thread does the I/O of every attempt; callers wait on it, from virtual threads.
 * Thread-safe.
 */
public final class ProbeHttp implements Lifecycle {
  /** A GET to send. */
  public record Request(
      Prober.Scheme scheme, String host, int port, String path, List<Prober.Header> headers) {}

  /** The status and the first bytes of the body. */
  public record Response(int status, String body) {}

  /** Why an attempt got no response, in Go's words; the caller prefixes {@code Get "url": }. */
  public static final class Failure extends Exception {
    Failure(String message) {
      super(message, null, false, false);
    }
  }

  private final int maxBody;
  private volatile EventLoopGroup group;
  private volatile SslContext tls;

  /**
   * @param maxBody at most this many bytes of a body are read
   */
  public ProbeHttp(int maxBody) {
    this.maxBody = maxBody;
  }

  @Override
  public synchronized void start() {
    if (group != null) {
      return;
    }
    try {
      tls =
          SslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE).build();
    } catch (SSLException e) {
      throw new IllegalStateException("probes: cannot build a TLS context", e);
    }
    group = NettyLoops.shared();
  }

  @Override
  public synchronized void stop() {
    group = null; // the process's loops stay for their other users
  }

  @Override
  public Health healthy() {
    return group == null ? Health.failing("probe HTTP client not started") : Health.OK;
  }

  /**
   * Sends the GET and waits for its response, at most {@code timeout} in all.
   *
   * @throws Failure when there is no response in time, or no connection
   * @throws InterruptedException when the caller is interrupted; the connection is closed
   */
  public Response get(Request req, Duration timeout) throws Failure, InterruptedException {
    EventLoopGroup g = group;
    if (g == null) {
      throw new IllegalStateException("probe HTTP client not started");
    }
    InetAddress address;
    try {
      address = InetAddress.getByName(req.host()); // here, not on the event loop: it may block
    } catch (UnknownHostException e) {
      throw new Failure("dial tcp: lookup " + req.host() + ": no such host");
    }
    Reader reader = new Reader(maxBody);
    ChannelFuture connect =
        new Bootstrap()
            .group(g)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, timeout.toMillis()))
            .handler(initializer(req, reader))
            .connect(new InetSocketAddress(address, req.port()));
    Channel ch = connect.channel();
    connect.addListener(
        f -> {
          if (f.isSuccess()) {
            ch.writeAndFlush(request(req));
          } else {
            reader.result.completeExceptionally(f.cause());
          }
        });
    try {
      return reader.result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new Failure(
          "context deadline exceeded (Client.Timeout "
              + (reader.status < 0
                  ? "exceeded while awaiting headers)"
                  : "or context cancellation while reading body)"));
    } catch (ExecutionException e) {
      throw new Failure(describe(req, e.getCause()));
    } finally {
      ch.close();
    }
  }

  private ChannelInitializer<SocketChannel> initializer(Request req, Reader reader) {
    SslContext ssl = req.scheme() == Prober.Scheme.HTTPS ? tls : null;
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(SocketChannel ch) {
        if (ssl != null) {
          // The URL's host for SNI, as Go: the engine sends none for an IP address.
          ch.pipeline().addLast(ssl.newHandler(ch.alloc(), req.host(), req.port()));
        }
        ch.pipeline().addLast(new HttpClientCodec()).addLast(reader);
      }
    };
  }

  /**
   * The GET, as upstream builds it: the probe's headers as given, a {@code Host} among them
   * replacing the URL's; {@code User-Agent} and {@code Accept} defaults where the probe names none.
   */
  private static DefaultFullHttpRequest request(Request req) {
    DefaultFullHttpRequest r =
        new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, req.path());
    HttpHeaders h = r.headers();
    req.headers().forEach(x -> h.add(x.name(), x.value()));
    if (!h.contains(HttpHeaderNames.HOST)) {
      boolean defaultPort = req.port() == (req.scheme() == Prober.Scheme.HTTPS ? 443 : 80);
      h.set(
          HttpHeaderNames.HOST,
          defaultPort ? HostPort.host(req.host()) : HostPort.join(req.host(), req.port()));
    }
    if (!h.contains(HttpHeaderNames.USER_AGENT)) {
      h.set(HttpHeaderNames.USER_AGENT, Prober.USER_AGENT);
    }
    if (!h.contains(HttpHeaderNames.ACCEPT)) {
      h.set(HttpHeaderNames.ACCEPT, "*/*");
    }
    h.set(HttpHeaderNames.CONNECTION, "close");
    return r;
  }

  /** Go's words for what went wrong, without the {@code Get "url": } prefix. */
  private static String describe(Request req, Throwable e) {
    String dial = "dial tcp " + req.host() + ":" + req.port() + ": ";
    String msg = e.getMessage() == null ? "" : e.getMessage();
    if (e instanceof ConnectException) {
      return dial + "connect: " + ProbeErrors.connect(e);
    }
    if (e instanceof io.netty.channel.ConnectTimeoutException) {
      return dial + "i/o timeout";
    }
    if (e instanceof ClosedChannelException || e instanceof EofBeforeResponse) {
      return "EOF";
    }
    if (e instanceof SSLException) {
      return "remote error: tls: " + msg;
    }
    return msg.isBlank() ? e.getClass().getSimpleName() : msg;
  }

  /** The connection closed before a whole response head came. */
  private static final class EofBeforeResponse extends IOException {
    EofBeforeResponse() {
      super("EOF", null);
    }
  }

  /**
   * Reads the response: its status, then the body up to the cap. It completes once the body ended
   * or the cap is reached; a connection that closes before the response's head fails it.
   */
  private static final class Reader extends SimpleChannelInboundHandler<HttpObject> {
    final CompletableFuture<Response> result = new CompletableFuture<>();
    private final int cap;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    volatile int status = -1;

    Reader(int cap) {
      this.cap = cap;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
      if (result.isDone()) {
        return;
      }
      if (msg instanceof HttpResponse r) {
        if (!r.decoderResult().isSuccess()) {
          result.completeExceptionally(
              new IOException(
                  "malformed HTTP response: " + r.decoderResult().cause().getMessage()));
          return;
        }
        status = r.status().code();
      }
      if (msg instanceof HttpContent c) {
        ByteBuf b = c.content();
        int n = Math.min(b.readableBytes(), cap - body.size());
        byte[] chunk = new byte[n];
        b.readBytes(chunk);
        body.writeBytes(chunk);
        if (body.size() >= cap || msg instanceof LastHttpContent) {
          complete();
        }
      }
    }

    private void complete() {
      result.complete(new Response(status, body.toString(StandardCharsets.UTF_8)));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (status >= 0) {
        complete(); // a body that ends with the connection
      } else {
        result.completeExceptionally(new EofBeforeResponse());
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      Throwable t = cause.getCause() instanceof SSLException s ? s : cause;
      result.completeExceptionally(t);
      ctx.close();
    }
  }
}
