package io.jkubelet.agent.e2e;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.URLDecoder;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A proxy in front of the container engine's unix socket, for tests that need a runtime call to
 * hang: it listens on a unix socket of its own ({@link #endpoint()}, for jkubelet's {@code
 * --container-runtime-endpoint}) and forwards every connection to the real engine's socket.
 *
 * <p>It reads the HTTP requests that a client sends (request line, headers and a body of {@code
 * Content-Length} or chunked), one after another on a kept-alive connection, and forwards each one
 * byte for byte. A request that a {@link Hang} matches is held instead: nothing of it reaches the
 * engine, and the connection says nothing, until that hang is {@linkplain Hang#release released}
 * (the request then goes on as if it had been slow) or the proxy is {@linkplain #close closed} (the
 * connection is then closed). What the engine answers is never parsed: responses, chunked event
 * streams and log streams pass through byte for byte. A hijacked request ({@code Upgrade} header,
 * {@code attach}, an exec's {@code start}) turns its connection into a raw stream both ways once it
 * is forwarded.
 *
 * <p>Thread-safe: each connection has a thread per direction (virtual threads); hangs may be added
 * and released while it runs. A hang applies to the requests read after it was added.
 *
 * <pre>{@code
 * try (EngineProxy proxy = EngineProxy.start()) {
 *   // jkubelet ... --container-runtime-endpoint=proxy.endpoint()
 *   EngineProxy.Hang hang = proxy.hang(containerId); // inspect, stop, ... of that container
 *   await().until(() -> !hang.held().isEmpty());
 *   hang.release();
 * }
 * }</pre>
 */
final class EngineProxy implements AutoCloseable {
  /** The engine's socket as Docker installs it. */
  static final Path DEFAULT_ENGINE = Path.of("/var/run/docker.sock");

  private static final int MAX_HEADER_BYTES = 64 * 1024;

  private final Path socket;
  private final Path engine;
  private final Path ownDir;
  private final ServerSocketChannel server;
  private final List<Hang> hangs = new CopyOnWriteArrayList<>();
  private final Set<SocketChannel> channels = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private EngineProxy(Path socket, Path engine, Path ownDir) throws IOException {
    this.socket = socket;
    this.engine = engine;
    this.ownDir = ownDir;
    this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
  }

  /** A proxy on a socket in a new temporary directory, in front of {@link #DEFAULT_ENGINE}. */
  static EngineProxy start() throws IOException {
    // A short path: a unix socket's path has at most 107 bytes.
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "engine-proxy");
    return start(dir.resolve("engine.sock"), DEFAULT_ENGINE, dir);
  }

  /** A proxy listening on {@code socket} (which must not exist) in front of {@code engine}. */
  static EngineProxy start(Path socket, Path engine) throws IOException {
    return start(socket, engine, null);
  }

  private static EngineProxy start(Path socket, Path engine, Path ownDir) throws IOException {
    EngineProxy proxy = new EngineProxy(socket, engine, ownDir);
    Thread.ofVirtual().name("engine-proxy-accept").start(proxy::accept);
    return proxy;
  }

  /** The proxy's socket. */
  Path socket() {
    return socket;
  }

  /** {@code unix://} and the proxy's socket, as {@code --container-runtime-endpoint} takes it. */
  String endpoint() {
    return "unix://" + socket;
  }

  /**
   * Holds every request whose path (without its query, URL-decoded) contains {@code
   * containerIdOrName}: {@code /containers/<id>/json}, {@code .../stop}, {@code .../kill}, ... A
   * full ID or a name; a name may be given with or without its leading {@code /}.
   */
  Hang hang(String containerIdOrName) {
    String token =
        containerIdOrName.startsWith("/") ? containerIdOrName.substring(1) : containerIdOrName;
    if (token.isEmpty()) {
      throw new IllegalArgumentException("no container ID or name");
    }
    return hang(r -> r.path().contains(token));
  }

  /** Holds every request that {@code which} matches. */
  Hang hang(Predicate<Request> which) {
    Hang h = new Hang(Objects.requireNonNull(which, "which"));
    hangs.add(h);
    return h;
  }

  /** Releases every hang and closes every connection and the socket. */
  @Override
  public void close() throws IOException {
    closed = true;
    for (Hang h : hangs) {
      h.release();
    }
    server.close();
    for (SocketChannel c : channels) {
      closeQuietly(c);
    }
    Files.deleteIfExists(socket);
    if (ownDir != null) {
      Files.deleteIfExists(ownDir);
    }
  }

  /**
   * One request as the proxy read it: its method, its target as sent (path and query), and its path
   * alone, URL-decoded.
   */
  record Request(String method, String target, String path) {
    static Request of(String method, String target) {
      int q = target.indexOf('?');
      String raw = q < 0 ? target : target.substring(0, q);
      return new Request(method, target, URLDecoder.decode(raw, StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
      return method + " " + target;
    }
  }

  /** Requests to hold: those its predicate matches, read while it is not released. Thread-safe. */
  final class Hang implements AutoCloseable {
    private final Predicate<Request> which;
    private final CountDownLatch released = new CountDownLatch(1);
    private final List<Request> held = new CopyOnWriteArrayList<>();

    private Hang(Predicate<Request> which) {
      this.which = which;
    }

    /** The requests held so far (released ones too), in the order they came. */
    List<Request> held() {
      return List.copyOf(held);
    }

    /** Whether it is released. */
    boolean released() {
      return released.getCount() == 0;
    }

    /**
     * Lets the held requests go on to the engine, and holds no more. A no-op if already released.
     */
    void release() {
      released.countDown();
      hangs.remove(this);
    }

    /** As {@link #release}. */
    @Override
    public void close() {
      release();
    }

    private boolean matches(Request r) {
      return !released() && which.test(r);
    }

    /** Waits until released; false if interrupted or the proxy closed. */
    private boolean await(Request r) {
      held.add(r);
      try {
        released.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      return !closed;
    }
  }

  private void accept() {
    while (!closed) {
      SocketChannel client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      channels.add(client);
      SocketChannel upstream;
      try {
        upstream = SocketChannel.open(UnixDomainSocketAddress.of(engine));
      } catch (IOException e) {
        closeQuietly(client);
        continue;
      }
      channels.add(upstream);
      if (closed) {
        closeQuietly(client);
        closeQuietly(upstream);
        return;
      }
      AtomicInteger directions = new AtomicInteger(2); // the last one to end closes both
      Runnable ended =
          () -> {
            if (directions.decrementAndGet() == 0) {
              closeQuietly(client);
              closeQuietly(upstream);
            }
          };
      Thread.ofVirtual()
          .name("engine-proxy-up")
          .start(
              () -> {
                requests(client, upstream);
                ended.run();
              });
      Thread.ofVirtual()
          .name("engine-proxy-down")
          .start(
              () -> {
                raw(in(upstream), client);
                ended.run();
              });
    }
  }

  /** Client to engine: request by request, holding those a hang matches. */
  private void requests(SocketChannel client, SocketChannel upstream) {
    InputStream in = in(client);
    try {
      while (true) {
        byte[] head = readHead(in);
        if (head == null) {
          upstream.shutdownOutput(); // the client is done
          return;
        }
        String text = new String(head, StandardCharsets.ISO_8859_1);
        String[] lines = text.split("\r\n");
        String[] first = lines[0].split(" ");
        if (first.length < 3) {
          throw new IOException("not an HTTP request: " + lines[0]);
        }
        Request request = Request.of(first[0], first[1]);
        long length = 0;
        boolean chunked = false;
        boolean upgrade = false;
        for (int i = 1; i < lines.length; i++) {
          int colon = lines[i].indexOf(':');
          if (colon <= 0) {
            continue;
          }
          String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
          String value = lines[i].substring(colon + 1).trim();
          switch (name) {
            case "content-length" -> length = Long.parseLong(value);
            case "transfer-encoding" ->
                chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
            case "upgrade" -> upgrade = true;
            default -> {}
          }
        }
        for (Hang h : hangs) {
          if (h.matches(request) && !h.await(request)) {
            closeQuietly(client);
            closeQuietly(upstream);
            return;
          }
        }
        write(upstream, head, head.length);
        if (chunked) {
          copyChunked(in, upstream);
        } else {
          copy(in, upstream, length);
        }
        if (upgrade || hijacks(request)) {
          raw(in, upstream);
          return;
        }
      }
    } catch (IOException | RuntimeException e) {
      // a side closed, or a request the proxy cannot read: end the connection
      closeQuietly(client);
      closeQuietly(upstream);
    }
  }

  /** Requests after which the engine streams both ways, with or without an Upgrade header. */
  private static boolean hijacks(Request r) {
    String p = r.path();
    return r.method().equals("POST")
        && (p.matches(".*/containers/[^/]+/attach$") || p.matches(".*/exec/[^/]+/start$"));
  }

  /** Copies until {@code in} ends, then shuts {@code to}'s output. */
  private void raw(InputStream in, SocketChannel to) {
    byte[] buf = new byte[16 * 1024];
    try {
      int n;
      while ((n = in.read(buf)) >= 0) {
        write(to, buf, n);
      }
      to.shutdownOutput();
    } catch (IOException e) {
      closeQuietly(to); // the other side ended the connection
    }
  }

  /** The header block up to and with its empty line; null if the stream ended before a byte. */
  private static byte[] readHead(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(512);
    int matched = 0; // of \r\n\r\n
    while (true) {
      int b = in.read();
      if (b < 0) {
        if (out.size() == 0) {
          return null;
        }
        throw new IOException("the request ended inside its headers");
      }
      out.write(b);
      if (out.size() > MAX_HEADER_BYTES) {
        throw new IOException("headers longer than " + MAX_HEADER_BYTES + " bytes");
      }
      boolean cr = matched == 0 || matched == 2;
      matched = (cr ? b == '\r' : b == '\n') ? matched + 1 : (b == '\r' ? 1 : 0);
      if (matched == 4) {
        return out.toByteArray();
      }
    }
  }

  private static void copy(InputStream in, SocketChannel to, long length) throws IOException {
    byte[] buf = new byte[16 * 1024];
    long left = length;
    while (left > 0) {
      int n = in.read(buf, 0, (int) Math.min(buf.length, left));
      if (n < 0) {
        throw new IOException("the request body ended early");
      }
      write(to, buf, n);
      left -= n;
    }
  }

  /** Forwards a chunked body: each size line, its data and CRLF, then the last chunk's trailer. */
  private static void copyChunked(InputStream in, SocketChannel to) throws IOException {
    while (true) {
      byte[] sizeLine = readLine(in);
      write(to, sizeLine, sizeLine.length);
      String hex = new String(sizeLine, StandardCharsets.ISO_8859_1).trim();
      int semi = hex.indexOf(';');
      long size = Long.parseLong(semi < 0 ? hex : hex.substring(0, semi).trim(), 16);
      if (size == 0) {
        while (true) { // trailer fields, then an empty line
          byte[] line = readLine(in);
          write(to, line, line.length);
          if (line.length == 2) {
            return;
          }
        }
      }
      copy(in, to, size + 2); // the data and its CRLF
    }
  }

  /** One line with its CRLF. */
  private static byte[] readLine(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(16);
    int prev = -1;
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("the request body ended inside a chunk line");
      }
      out.write(b);
      if (prev == '\r' && b == '\n') {
        return out.toByteArray();
      }
      if (out.size() > MAX_HEADER_BYTES) {
        throw new IOException("a chunk line longer than " + MAX_HEADER_BYTES + " bytes");
      }
      prev = b;
    }
  }

  private static void write(SocketChannel to, byte[] bytes, int n) throws IOException {
    ByteBuffer buf = ByteBuffer.wrap(bytes, 0, n);
    while (buf.hasRemaining()) {
      to.write(buf);
    }
  }

  /**
   * A buffered stream over a blocking channel. NOTE: not {@code Channels.newInputStream}, which
   * holds the channel's blocking lock while it reads, so that a write from the other direction's
   * thread would wait for the read.
   */
  private static InputStream in(SocketChannel ch) {
    return new BufferedInputStream(
        new InputStream() {
          @Override
          public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
          }

          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
              return 0;
            }
            return ch.read(ByteBuffer.wrap(b, off, len));
          }
        },
        16 * 1024);
  }

  private void closeQuietly(SocketChannel c) {
    channels.remove(c);
    try {
      c.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  /** For a test's failure message: the hangs not yet released and what they hold. */
  @Override
  public String toString() {
    List<String> open = new ArrayList<>();
    for (Hang h : hangs) {
      open.add(h.held().toString());
    }
    return "EngineProxy[" + socket + " -> " + engine + ", holding " + open + "]";
  }
}
