package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.runtime.StreamHandle;
import io.jkubelet.agent.runtime.TerminalSize;
import io.jkubelet.agent.util.Errors;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Port-forwarding into a pod, as dockershim's {@code portForward}: it enters the sandbox's network
 * namespace with {@code nsenter -t <sandbox pid> -n} and relays there, so that a port bound to
 * 127.0.0.1 inside the pod is reached as well as one on the pod IP.
 *
 * <p>The relay is {@link PortRelay} in a small JVM of its own (the JVM that runs jkubelet, with
 * jkubelet's class path), not socat: a node then needs nothing but {@code nsenter} (util-linux),
 * which every distribution has. A JVM starts in a fraction of a second, once per forwarded
 * connection; {@code kubectl port-forward} opens one per client connection.
 *
 * <p>Thread-safe. Each forwarded connection owns one relay process and two virtual threads; {@link
 * StreamHandle#close} kills the process and so ends both.
 */
final class PortForwarder {
  private static final Logger log = LoggerFactory.getLogger(PortForwarder.class);
  private static final int MAX_STDERR = 4096;

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
    Process process;
    try {
      process = new ProcessBuilder(command(pid, port)).start();
    } catch (IOException e) {
      throw Errors.withCause(
          new RuntimeError(
              Kind.OTHER, "unable to do port forwarding: cannot run nsenter: " + e.getMessage()),
          e);
    }
    log.debug(
        "DockerRuntime: forwarding port {} of sandbox {}", port, DockerStreams.shortId(sandboxId));
    return new Relay(process, in, out).start();
  }

  /** {@code nsenter -t PID -n -- JAVA ... PortRelay PORT}. */
  static List<String> command(long pid, int port) {
    List<String> cmd = new ArrayList<>();
    cmd.addAll(List.of(nsenter(), "-t", Long.toString(pid), "-n", "--"));
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(
        List.of(
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xmx16m",
            "-XX:-UsePerfData",
            "-Xshare:auto",
            "-cp",
            relayClassPath(),
            PortRelay.class.getName(),
            Integer.toString(port)));
    return cmd;
  }

  /** Where {@link PortRelay} is: jkubelet's own jar (or class directory), nothing else. */
  private static String relayClassPath() {
    try {
      return Path.of(PortRelay.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (java.net.URISyntaxException | RuntimeException e) {
      return System.getProperty("java.class.path");
    }
  }

  private static String nsenter() {
    for (String dir : List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin")) {
      Path p = Path.of(dir, "nsenter");
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    return "nsenter";
  }

  /** One forwarded connection: the relay process and the two copies. */
  private static final class Relay implements StreamHandle {
    private final Process process;
    private final InputStream in;
    private final OutputStream out;
    private final CountDownLatch outputDone = new CountDownLatch(1);
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Thread upThread;

    Relay(Process process, InputStream in, OutputStream out) {
      this.process = process;
      this.in = in;
      this.out = out;
    }

    Relay start() {
      upThread = Thread.ofVirtual().name("port-forward-up").start(this::copyUp);
      Thread.ofVirtual().name("port-forward-down").start(this::copyDown);
      return this;
    }

    private void copyUp() {
      // NOTE: the process's stdin is buffered: flush every chunk, or a request waits for more.
      byte[] buf = new byte[32 * 1024];
      try (OutputStream toRelay = process.getOutputStream()) {
        int n;
        while ((n = in.read(buf)) >= 0) {
          toRelay.write(buf, 0, n);
          toRelay.flush();
        }
      } catch (IOException e) {
        // the relay or the client went away
      }
    }

    private void copyDown() {
      byte[] buf = new byte[32 * 1024];
      try (InputStream fromRelay = process.getInputStream()) {
        int n;
        while ((n = fromRelay.read(buf)) >= 0) {
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        close(); // the client went away
      } finally {
        try (InputStream err = process.getErrorStream()) {
          stderr.write(err.readNBytes(MAX_STDERR));
        } catch (IOException e) {
          // no message then
        }
        outputDone.countDown();
      }
    }

    @Override
    public int await() throws InterruptedException {
      outputDone.await();
      int code = process.waitFor();
      Thread up = upThread;
      if (up != null) {
        up.interrupt();
      }
      if (code != 0 && !closed.get()) {
        String message = stderr.toString(StandardCharsets.UTF_8).trim();
        throw new RuntimeError(
            Kind.OTHER, message.isEmpty() ? "the relay exited with " + code : message);
      }
      return NO_EXIT_CODE;
    }

    @Override
    public void resize(TerminalSize size) {}

    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        process.destroyForcibly();
        Thread up = upThread;
        if (up != null) {
          up.interrupt();
        }
      }
    }
  }
}
