package io.jkubelet.agent.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy in front of a registry that plays a slow or a stalling link: what the registry sends
 * is passed on at most {@link #bytesPerSecond} (0: at once), and on each connection only the first
 * {@link #stallAfter} bytes (negative: all); after them the connection stays open and says nothing,
 * as a registry that stalls mid-layer. TLS passes through untouched, so the engine talks to the
 * registry itself. Both settings may change while it runs; a stalled connection stays so.
 */
final class SlowProxy implements AutoCloseable {
  volatile long bytesPerSecond;
  volatile long stallAfter = -1;

  private final ServerSocket server;
  private final InetSocketAddress upstream;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  SlowProxy(String ip, InetSocketAddress upstream) throws IOException {
    this.server = new ServerSocket(0, 50, InetAddress.getByName(ip));
    this.upstream = upstream;
    Thread.ofVirtual().name("slow-proxy-accept").start(this::accept);
  }

  /** {@code ip:port}, as an image name names the registry through the proxy. */
  String hostPort() {
    return server.getInetAddress().getHostAddress() + ":" + server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket registry = new Socket(upstream.getAddress(), upstream.getPort());
        sockets.add(client);
        sockets.add(registry);
        Thread.ofVirtual().start(() -> copy(client, registry, false));
        Thread.ofVirtual().start(() -> copy(registry, client, true));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void copy(Socket from, Socket to, boolean down) {
    byte[] buf = new byte[16 * 1024];
    long sent = 0;
    long start = System.nanoTime();
    // NOTE: no try-with-resources: closing a socket's stream closes the socket, and a stalled
    // connection must stay open.
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buf)) >= 0) {
        if (down) {
          long stall = stallAfter;
          if (stall >= 0 && sent + n > stall) {
            out.write(buf, 0, (int) Math.max(0, stall - sent));
            out.flush();
            return; // stalled: the sockets stay open until close()
          }
          long rate = bytesPerSecond;
          if (rate > 0) { // a slow link: hold each chunk until the rate allows it
            long due = start + TimeUnit.SECONDS.toNanos(sent + n) / rate;
            for (long wait; (wait = due - System.nanoTime()) > 0; ) {
              LockSupport.parkNanos(wait);
            }
          }
        }
        out.write(buf, 0, n);
        out.flush();
        sent += n;
      }
      to.shutdownOutput();
    } catch (IOException e) {
      // a side closed
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
  }
}
