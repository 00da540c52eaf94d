package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.runtime.StreamHandle;
import io.jkubelet.agent.runtime.TerminalSize;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Port-forwarding into a pod, as dockershim's {@code portForward}: the connection is made to
 * 127.0.0.1 inside the sandbox's network namespace, so that a port bound to 127.0.0.1 inside the
 * pod is reached as well as one on the pod IP. Dockershim runs {@code nsenter -t <sandbox pid> -n
 * socat - TCP4:localhost:<port>} per connection; here a thread of jkubelet's enters the namespace
 * and makes the connection ({@link NetnsDialer}), and two virtual threads copy between it and the
 * client: no process, nothing needed on the node.
 *
 * <p>Thread-safe. Each forwarded connection owns one socket and two virtual threads; {@link
 * StreamHandle#close} closes the socket and so ends both.
 */
final class PortForwarder {
  private static final Logger log = LoggerFactory.getLogger(PortForwarder.class);

  private final DockerClient api;

  PortForwarder(DockerClients clients) {
    this.api = clients.api();
  }

  StreamHandle forward(String sandboxId, int port, InputStream in, OutputStream out) {
    if (port < 1 || port > 65535) {
      throw new RuntimeError(Kind.OTHER, "invalid port " + port);
    }
    InspectContainerResponse inspected;
    try {
      inspected = api.inspectContainerCmd(sandboxId).exec();
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
    Long pid = inspected.getState() == null ? null : inspected.getState().getPidLong();
    if (!Boolean.TRUE.equals(inspected.getState().getRunning()) || pid == null || pid <= 0) {
      throw new RuntimeError(Kind.OTHER, "container not running (" + sandboxId + ")");
    }
    log.debug(
        "DockerRuntime: forwarding port {} of sandbox {}", port, DockerStreams.shortId(sandboxId));
    return new Relay(pid, port, in, out).start();
  }

  /** One forwarded connection: the socket in the pod's namespace and the two copies. */
  private static final class Relay implements StreamHandle {
    private final long pid;
    private final int port;
    private final InputStream in;
    private final OutputStream out;
    private final CountDownLatch done = new CountDownLatch(1);
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile SocketChannel socket;
    private volatile Thread upThread;
    private volatile IOException failure;

    Relay(long pid, int port, InputStream in, OutputStream out) {
      this.pid = pid;
      this.port = port;
      this.in = in;
      this.out = out;
    }

    Relay start() {
      Thread.ofVirtual().name("port-forward-down").start(this::connectThenCopyDown);
      return this;
    }

    private void connectThenCopyDown() {
      try {
        SocketChannel ch = NetnsDialer.connect(pid, port);
        socket = ch;
        if (closed.get()) {
          closeSocket();
          return;
        }
        upThread = Thread.ofVirtual().name("port-forward-up").start(() -> copyUp(ch));
        copyDown(ch);
      } catch (IOException e) {
        failure = e;
      } finally {
        done.countDown();
      }
    }

    private void copyUp(SocketChannel ch) {
      byte[] buf = new byte[32 * 1024];
      try {
        int n;
        while ((n = in.read(buf)) >= 0) {
          ch.write(ByteBuffer.wrap(buf, 0, n));
        }
        ch.shutdownOutput(); // the client's end of input, passed on as socat does
      } catch (IOException e) {
        // the port or the client went away
      }
    }

    private void copyDown(SocketChannel ch) {
      ByteBuffer buf = ByteBuffer.allocate(32 * 1024);
      try {
        while (ch.read(buf.clear()) >= 0) {
          out.write(buf.array(), 0, buf.position());
          out.flush();
        }
      } catch (IOException e) {
        close(); // the client or the port went away
      }
    }

    @Override
    public int await() throws InterruptedException {
      done.await();
      Thread up = upThread;
      if (up != null) {
        up.interrupt();
      }
      IOException e = failure;
      if (e != null && !closed.get()) {
        throw new RuntimeError(Kind.OTHER, e.getMessage());
      }
      return NO_EXIT_CODE;
    }

    @Override
    public void resize(TerminalSize size) {}

    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        closeSocket();
        Thread up = upThread;
        if (up != null) {
          up.interrupt();
        }
      }
    }

    private void closeSocket() {
      SocketChannel ch = socket;
      if (ch != null) {
        try {
          ch.close();
        } catch (IOException e) {
          // closed already
        }
      }
    }
  }
}
