package io.jkubelet.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on loopback that a test can take down and bring back, to play an API server that goes
 * away: while down it closes every connection it has and refuses new ones. TLS passes through
 * untouched. Threads are virtual and end with their sockets.
 */
public final class TestProxy implements AutoCloseable {
  private final String targetHost;
  private final int targetPort;
  private final ServerSocket server;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean up = true;

  public TestProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().name("test-proxy-accept").start(this::accept);
  }

  public int port() {
    return server.getLocalPort();
  }

  public void down() {
    up = false;
    for (Socket s : open) {
      closeQuietly(s);
    }
  }

  public void up() {
    up = true;
  }

  @Override
  public void close() {
    down();
    closeQuietly(server);
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      if (!up) {
        closeQuietly(client);
        continue;
      }
      try {
        Socket target = new Socket(targetHost, targetPort);
        open.add(client);
        open.add(target);
        Thread.ofVirtual().start(() -> pump(client, target));
        Thread.ofVirtual().start(() -> pump(target, client));
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private void pump(Socket from, Socket to) {
    byte[] buf = new byte[16384];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // the other side or down() closed it
    } finally {
      closeQuietly(from);
      closeQuietly(to);
      open.remove(from);
      open.remove(to);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // already closed
    }
  }
}
