package io.jkubelet.agent.runtime.docker;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * The relay that {@link PortForwarder} runs inside a pod's network namespace (under {@code nsenter
 * -n}), in the role that {@code socat - TCP4:localhost:PORT} plays for dockershim: it connects to
 * the port on 127.0.0.1, copies its stdin to the connection (half-closing it at the end of stdin)
 * and the connection to its stdout, and exits when the connection's input ends. It prints a
 * one-line reason to stderr and exits with 1 when it cannot connect.
 *
 * <p>It uses nothing but the JDK, so that it starts in a small JVM of its own.
 */
public final class PortRelay {
  private PortRelay() {}

  public static void main(String[] args) {
    int port = Integer.parseInt(args[0]);
    Socket socket = new Socket();
    try {
      socket.connect(
          new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), port));
    } catch (IOException e) {
      System.err.println(
          "connect to 127.0.0.1:" + port + " in the pod's network namespace: " + e.getMessage());
      System.exit(1);
    }
    Thread up =
        new Thread(
            () -> {
              try {
                copy(System.in, socket.getOutputStream());
                socket.shutdownOutput();
              } catch (IOException e) {
                // the connection is gone; the other direction ends too
              }
            },
            "relay-up");
    up.setDaemon(true);
    up.start();
    try {
      copy(socket.getInputStream(), new FileOutputStream(FileDescriptor.out));
    } catch (IOException e) {
      // the client or the port went away
    }
    System.exit(0);
  }

  private static void copy(InputStream in, OutputStream out) throws IOException {
    byte[] buf = new byte[32 * 1024];
    int n;
    while ((n = in.read(buf)) >= 0) {
      out.write(buf, 0, n);
      out.flush();
    }
  }
}
