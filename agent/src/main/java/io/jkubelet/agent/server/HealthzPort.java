package io.jkubelet.agent.server;

import io.jkubelet.agent.server.auth.Subject;
import io.jkubelet.agent.util.Lifecycle;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import java.util.List;
import java.util.Map;

/**
 * The healthz port ({@code healthzPort} on {@code healthzBindAddress}, plain HTTP): {@code
 * /healthz}, {@code /healthz/ping} and {@code /healthz/<check>}, as {@link CoreRoutes} serves them.
 *
 * <p>The composition root starts it first, before the TLS bootstrap and the wait for the engine,
 * and the kubelet API hands it the node's checks when it starts ({@link #serve}); until then it
 * answers "ok", as upstream's sync-loop check does before the loop has run. {@code kubeadm join}
 * gives up when this port has not answered within 40 s and about two minutes of retries of the
 * kubelet's start, and a JVM on a slow or emulated CPU can take longer than that to build the
 * agent. {@link #start} and {@link #stop} may each be called again (the second does nothing). Port
 * 0: it serves nothing.
 */
public final class HealthzPort implements Lifecycle {
  /** No healthz port ({@code healthzPort: 0}, or a process that serves no port). */
  public static final HealthzPort NONE = new HealthzPort("127.0.0.1", 0);

  private final String address;
  private final int port;
  private volatile CoreRoutes routes = new CoreRoutes(new Healthz(Map.of()), null, null);
  private KubeletServer server;

  public HealthzPort(String address, int port) {
    this.address = address;
    this.port = port;
  }

  /** From now on {@code /healthz} runs these checks. */
  public void serve(Healthz checks) {
    routes = new CoreRoutes(checks, null, null);
  }

  @Override
  public synchronized void start() {
    if (port == 0 || server != null) {
      return;
    }
    KubeletServer s = KubeletServer.open(address, port, List.of(new Current()));
    s.start();
    server = s;
  }

  @Override
  public synchronized void stop() {
    if (server != null) {
      server.stop();
      server = null;
    }
  }

  @Override
  public synchronized Health healthy() {
    return port == 0 || server != null ? Health.OK : Health.failing("healthz port not started");
  }

  /** The port it listens on; the configured one before {@link #start}. */
  public synchronized int port() {
    return server == null ? port : server.port();
  }

  /** The checks in effect now. */
  private final class Current implements Route {
    @Override
    public boolean matches(String path) {
      return routes.matches(path);
    }

    @Override
    public void handle(ChannelHandlerContext ctx, FullHttpRequest request, Subject subject) {
      routes.handle(ctx, request, subject);
    }
  }
}
