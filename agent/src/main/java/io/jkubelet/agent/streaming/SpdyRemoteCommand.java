package io.jkubelet.agent.streaming;

import io.jkubelet.agent.runtime.StreamIo;
import io.jkubelet.agent.runtime.TerminalSize;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exec and attach over SPDY, as upstream's {@code createHTTPStreamStreams}: the client opens one
 * stream per {@code streamType} header ({@code error}, {@code stdin}, {@code stdout}, {@code
 * stderr}, and {@code resize} with a TTY from protocol v3 on); once every expected stream has been
 * answered, the command starts. The error stream carries the status: {@code metav1.Status} JSON in
 * {@code v4.channel.k8s.io}, a failure's message in the older versions.
 *
 * <p>Thread-safe: the acceptor methods run on the event loop, the {@link RemoteCommandStreams}
 * methods on the command's thread.
 */
final class SpdyRemoteCommand implements SpdyConnection.Acceptor, RemoteCommandStreams {
  private static final Logger log = LoggerFactory.getLogger(SpdyRemoteCommand.class);

  static final String V4 = "v4.channel.k8s.io";
  static final String V3 = "v3.channel.k8s.io";
  static final String V2 = "v2.channel.k8s.io";
  static final String V1 = "channel.k8s.io";

  /** What the server accepts in {@code X-Stream-Protocol-Version}, newest first. */
  static final List<String> PROTOCOLS = List.of(V4, V3, V2, V1);

  private static final List<String> TYPES = List.of("error", "stdin", "stdout", "stderr", "resize");

  private final StreamOptions options;
  private final String protocol;
  private final Consumer<SpdyRemoteCommand> onReady;
  private final Map<String, SpdyStream> byType = new ConcurrentHashMap<>();
  private final ClientGone gone = new ClientGone();
  private final AtomicBoolean started = new AtomicBoolean();
  private final int expected;
  private int replied;
  private volatile SpdyConnection connection;

  /** {@code onReady} is called (on the event loop) once every expected stream is up. */
  SpdyRemoteCommand(StreamOptions options, String protocol, Consumer<SpdyRemoteCommand> onReady) {
    this.options = options;
    this.protocol = protocol;
    this.onReady = onReady;
    this.expected = expectedStreams(options, protocol);
  }

  /** The error stream, and one per requested stream; the resize stream with a TTY from v3 on. */
  static int expectedStreams(StreamOptions options, String protocol) {
    int n = 1;
    n += options.stdin() ? 1 : 0;
    n += options.stdout() ? 1 : 0;
    n += options.stderr() ? 1 : 0;
    n += options.tty() && (protocol.equals(V4) || protocol.equals(V3)) ? 1 : 0;
    return n;
  }

  @Override
  public void attachTo(SpdyConnection connection) {
    this.connection = connection;
  }

  /**
   * Closes the connection if the client has not opened its streams yet: upstream's stream creation
   * timeout. Called on the event loop.
   */
  void closeUnlessStarted() {
    SpdyConnection c = connection;
    if (!started.get() && c != null) {
      log.info("Streaming: timed out waiting for client to create streams");
      c.close();
    }
  }

  @Override
  public String accept(SpdyStream stream) {
    String type = stream.header("streamType");
    if (TYPES.contains(type) && !(type.equals("resize") && !supportsResize())) {
      if (byType.putIfAbsent(type, stream) != null) {
        log.info("Streaming: a second {} stream was ignored", type);
      }
    } else {
      log.info("Streaming: unexpected stream type: \"{}\"", type);
    }
    return null; // upstream answers every stream, and only counts the ones it knows
  }

  private boolean supportsResize() {
    return protocol.equals(V4) || protocol.equals(V3);
  }

  @Override
  public void replied(SpdyStream stream) {
    if (byType.get(stream.header("streamType")) != stream || started.get()) {
      return;
    }
    if (++replied == expected && started.compareAndSet(false, true)) {
      if (protocol.equals(V1) && byType.containsKey("stdin")) {
        byType.get("stdin").finish(); // as 1.0 kubelets did
      }
      onReady.accept(this);
    }
  }

  @Override
  public void clientGone() {
    gone.happened();
  }

  @Override
  public StreamIo io() {
    SpdyStream in = options.stdin() ? byType.get("stdin") : null;
    return new StreamIo(
        in == null ? null : in.input(),
        output("stdout", options.stdout()),
        output("stderr", options.stderr()),
        options.tty());
  }

  private OutputStream output(String type, boolean wanted) {
    SpdyStream s = wanted ? byType.get(type) : null;
    return s == null ? null : s.output();
  }

  @Override
  public void onResize(Consumer<TerminalSize> listener) {
    SpdyStream s = byType.get("resize");
    if (s != null && options.tty()) {
      ResizeEvents.follow(s.input(), listener);
    }
  }

  @Override
  public ClientGone gone() {
    return gone;
  }

  @Override
  public void finish(ExecStatus status) {
    SpdyStream error = byType.get("error");
    if (error != null) {
      if (protocol.equals(V4)) {
        error.writeAndFinish(status.json());
      } else {
        error.writeAndFinish(
            status.success() ? new byte[0] : status.text().getBytes(StandardCharsets.UTF_8));
      }
    }
    byType.values().forEach(s -> s.input().discard());
    SpdyConnection c = connection;
    if (c != null) {
      c.finish();
    }
  }
}
