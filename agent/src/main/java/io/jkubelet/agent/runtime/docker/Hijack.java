package io.jkubelet.agent.runtime.docker;

import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.util.Errors;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A raw, upgraded ("hijacked") connection to the engine, for the streams of an interactive exec or
 * attach: {@code POST} with {@code Connection: Upgrade} and {@code Upgrade: tcp}, then the engine's
 * {@code 101 UPGRADED} and a full-duplex byte stream, as the docker CLI does.
 *
 * <p>NOTE: docker-java's hijacking (httpclient5 transport) copies stdin into the connection but
 * never half-closes it when stdin ends, so a command reading its input (`cat`, `tar x` under {@code
 * kubectl cp}, a script on {@code kubectl exec -i}) would never see its end. Here the connection is
 * a {@link SocketChannel} (a Unix socket or plain TCP), whose {@link #closeInput} is a real
 * half-close, which the engine passes on to the process as the end of its stdin. An engine behind
 * TLS is not supported for streams.
 *
 * <p>Thread-safe as a socket is: one thread may read while another writes; {@link #close} from any
 * thread ends both.
 */
final class Hijack implements AutoCloseable {
  private static final int MAX_HEADER_BYTES = 64 * 1024;
  private static final int BUFFER = 8 * 1024;

  private final SocketChannel channel;
  private final InputStream in;
  private final OutputStream out;

  private Hijack(SocketChannel channel) {
    this.channel = channel;
    // Buffered: the answer's head is read a byte at a time, which unbuffered is a read from the
    // socket per byte; reads of a buffer's size or more still go to the socket directly.
    this.in = new BufferedInputStream(Channels.newInputStream(channel), BUFFER);
    this.out = Channels.newOutputStream(channel);
  }

  /**
   * Connects to the engine at {@code host} ({@code unix:///path} or {@code tcp://host:port}), posts
   * {@code path} with the JSON body and returns the upgraded connection. An engine answer other
   * than 101 or 200 is a {@link RuntimeError}: {@code NOT_FOUND} for 404, {@code OTHER} with the
   * engine's message otherwise (e.g. 409, a container that is not running).
   */
  static Hijack open(String host, String path, String jsonBody) {
    byte[] body = jsonBody.getBytes(StandardCharsets.UTF_8);
    String head =
        "POST "
            + path
            + " HTTP/1.1\r\nHost: docker\r\nUser-Agent: jkubelet\r\n"
            + "Content-Type: application/json\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n"
            + "Content-Length: "
            + body.length
            + "\r\n\r\n";
    return request(host, path, head, body);
  }

  /**
   * Sends a plain {@code GET path} (HTTP/1.0, so the body is neither chunked nor kept alive: it
   * ends when the engine closes the connection) and returns the connection at the start of the
   * body. Errors as {@link #open}.
   */
  static Hijack get(String host, String path) {
    return request(
        host,
        path,
        "GET " + path + " HTTP/1.0\r\nHost: docker\r\nUser-Agent: jkubelet\r\n\r\n",
        new byte[0]);
  }

  /** Connects, sends the request's head and body, and reads the answer's head. */
  private static Hijack request(String host, String path, String head, byte[] body) {
    SocketChannel channel = connect(host);
    Hijack h = new Hijack(channel);
    try {
      h.out.write(head.getBytes(StandardCharsets.US_ASCII));
      h.out.write(body);
      h.out.flush();
      h.readResponseHead(path);
      return h;
    } catch (IOException e) {
      h.close();
      throw Errors.withCause(
          new RuntimeError(Kind.UNAVAILABLE, "docker: " + path + ": " + e.getMessage()), e);
    } catch (RuntimeException e) {
      h.close();
      throw e;
    }
  }

  private static SocketChannel connect(String host) {
    URI uri = URI.create(host);
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    try {
      return switch (scheme) {
        case "unix" -> {
          SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
          c.connect(UnixDomainSocketAddress.of(uri.getPath()));
          yield c;
        }
        case "tcp", "http" ->
            SocketChannel.open(
                new InetSocketAddress(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 2375));
        default ->
            throw new RuntimeError(
                Kind.OTHER, "streams need a unix:// or plain tcp:// docker host, not " + host);
      };
    } catch (IOException e) {
      throw Errors.withCause(
          new RuntimeError(Kind.UNAVAILABLE, "docker: cannot connect to " + host + ": " + e), e);
    }
  }

  /** Reads the status line and headers; leaves the stream at the first byte after them. */
  private void readResponseHead(String path) throws IOException {
    String head = readHead();
    String statusLine = head.lines().findFirst().orElse("");
    String[] parts = statusLine.split(" ", 3);
    int code = parts.length >= 2 ? parseCode(parts[1]) : -1;
    if (code == 101 || code == 200) {
      return;
    }
    int length = contentLength(head);
    String message = length > 0 ? new String(in.readNBytes(length), StandardCharsets.UTF_8) : "";
    message = DockerErrors.messageOf(message);
    throw new RuntimeError(
        code == 404 ? Kind.NOT_FOUND : code >= 500 ? Kind.UNAVAILABLE : Kind.OTHER,
        message.isBlank() ? "docker: " + path + ": " + statusLine : message);
  }

  private String readHead() throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream(256);
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("the engine closed the connection before answering");
      }
      head.write(b);
      matched =
          (b == '\r' && matched % 2 == 0) || (b == '\n' && matched % 2 == 1) ? matched + 1 : 0;
      if (head.size() > MAX_HEADER_BYTES) {
        throw new IOException("the engine's answer has no end of headers");
      }
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  private static int parseCode(String s) {
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static int contentLength(String head) {
    for (String line : head.split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("Content-Length")) {
        try {
          return Math.min(Integer.parseInt(line.substring(colon + 1).trim()), MAX_HEADER_BYTES);
        } catch (NumberFormatException e) {
          return 0;
        }
      }
    }
    return 0;
  }

  /** The engine's side of the stream (stdout and stderr, multiplexed unless there is a TTY). */
  InputStream input() {
    return in;
  }

  /** The process's stdin. */
  OutputStream output() {
    return out;
  }

  /** Half-closes the connection: the process's stdin ends; its output still comes. */
  void closeInput() {
    try {
      channel.shutdownOutput();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      // nothing left to release
    }
  }
}
