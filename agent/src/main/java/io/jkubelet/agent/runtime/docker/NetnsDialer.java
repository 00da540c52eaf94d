package io.jkubelet.agent.runtime.docker;

import io.jkubelet.agent.util.LibC;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Connects to a port on 127.0.0.1 inside a process's network namespace, as dockershim's {@code
 * nsenter -t <pid> -n socat - TCP4:localhost:<port>} does, without a process: a platform thread of
 * its own enters the namespace ({@code setns(2)} on {@code /proc/<pid>/ns/net}, {@link LibC}),
 * opens and connects the socket there, and ends. A network namespace is a thread's own, not the
 * process's, and a socket stays in the namespace it was made in, so the connection is used from any
 * thread afterwards while every other thread stays in the host's namespace. The thread that entered
 * it is never used again. Needs {@code CAP_SYS_ADMIN}, as nsenter does.
 *
 * <p>Stateless; thread-safe.
 */
final class NetnsDialer {
  private NetnsDialer() {}

  /**
   * A connection to 127.0.0.1:{@code port} in the network namespace of process {@code pid}.
   *
   * @throws IOException when the namespace cannot be entered or the port refuses, with a one-line
   *     reason
   */
  static SocketChannel connect(long pid, int port) throws IOException {
    CompletableFuture<SocketChannel> done = new CompletableFuture<>();
    Thread.ofPlatform()
        .name("netns-dial")
        .daemon()
        .start(
            () -> {
              try {
                enter(pid);
                done.complete(dial(port));
              } catch (IOException | RuntimeException e) {
                done.completeExceptionally(e);
              }
            });
    try {
      return done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      done.thenAccept(NetnsDialer::closeQuietly);
      throw new IOException("interrupted while connecting in the pod's network namespace", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(e.getCause().toString(), e.getCause());
    }
  }

  /** Moves the calling thread into the network namespace of {@code pid}. */
  private static void enter(long pid) throws IOException {
    int fd = LibC.open("/proc/" + pid + "/ns/net", LibC.O_RDONLY | LibC.O_CLOEXEC);
    try {
      LibC.setns(fd, LibC.CLONE_NEWNET);
    } finally {
      LibC.close(fd);
    }
  }

  private static SocketChannel dial(int port) throws IOException {
    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.INET);
    try {
      ch.connect(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), port));
      return ch;
    } catch (IOException e) {
      closeQuietly(ch);
      throw new IOException(
          "connect to 127.0.0.1:" + port + " in the pod's network namespace: " + e.getMessage(), e);
    }
  }

  private static void closeQuietly(SocketChannel ch) {
    try {
      ch.close();
    } catch (IOException e) {
      // nothing to do
    }
  }
}
