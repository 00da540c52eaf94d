package io.jkubelet.agent.streaming;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.StreamHandle;
import io.jkubelet.agent.runtime.StreamIo;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streaming endpoints, as upstream's {@code getExec}, {@code getAttach}, {@code getPortForward}
 * and {@code getRun}: options from the query (400 with upstream's message when bad), the pod and
 * container from {@link StreamTargets} (404: {@code pod does not exist}, {@code container not found
 * ("name")}), then the upgrade to SPDY or a WebSocket and the session.
 *
 * <p>Each method takes over the connection: it answers (an error, or the upgrade and then the
 * streams) and the HTTP layer must send nothing more. Lookups call the runtime, so they run on a
 * virtual thread while the connection does not read; the upgrade goes back to the event loop.
 * Thread-safe.
 */
public final class StreamingService {
  private static final Logger log = LoggerFactory.getLogger(StreamingService.class);

  /** How long the client has to open its streams after the upgrade, as upstream's default. */
  static final Duration STREAM_CREATION_TIMEOUT = Duration.ofSeconds(30);

  private final StreamTargets targets;

  public StreamingService(StreamTargets targets) {
    this.targets = targets;
  }

  /** What a streaming path names: {@code uid} and {@code container} may be empty. */
  public record Target(String namespace, String pod, String uid, String container) {}

  /**
   * {@code /exec/{ns}/{pod}[/{uid}]/{container}?command=..&input=1&output=1..}: see the class
   * comment.
   */
  public void exec(
      ChannelHandlerContext ctx, HttpRequest req, Target t, Map<String, List<String>> query) {
    List<String> command = query.getOrDefault("command", List.of());
    remoteCommand(
        ctx,
        req,
        t,
        query,
        RemoteCommand.Kind.EXEC,
        id -> io -> targets.runtime().execStream(id, command, io));
  }

  /** {@code /attach/{ns}/{pod}[/{uid}]/{container}?input=1&output=1..}. */
  public void attach(
      ChannelHandlerContext ctx, HttpRequest req, Target t, Map<String, List<String>> query) {
    remoteCommand(
        ctx,
        req,
        t,
        query,
        RemoteCommand.Kind.ATTACH,
        id -> io -> targets.runtime().attach(id, io));
  }

  private void remoteCommand(
      ChannelHandlerContext ctx,
      HttpRequest req,
      Target t,
      Map<String, List<String>> query,
      RemoteCommand.Kind kind,
      Function<String, Function<StreamIo, StreamHandle>> starter) {
    StreamOptions options = fromQuery(ctx, () -> StreamOptions.fromQuery(query));
    if (options == null) {
      return;
    }
    HttpRequest copy = copy(req);
    offLoop(
        ctx,
        () -> container(t),
        containerId -> {
          String what =
              kind.name().toLowerCase()
                  + " in "
                  + t.namespace()
                  + "/"
                  + t.pod()
                  + "/"
                  + t.container();
          Function<StreamIo, StreamHandle> start = starter.apply(containerId);
          if (Upgrades.isWebSocket(copy)) {
            WebSocketUpgrade.remoteCommand(
                ctx, copy, options, handler -> RemoteCommand.start(kind, what, handler, start));
          } else {
            spdyRemoteCommand(ctx, copy, options, rc -> RemoteCommand.start(kind, what, rc, start));
          }
        });
  }

  private void spdyRemoteCommand(
      ChannelHandlerContext ctx,
      HttpRequest req,
      StreamOptions options,
      Consumer<SpdyRemoteCommand> run) {
    SpdyRemoteCommand rc =
        Upgrades.toSpdy(
            ctx,
            req,
            SpdyRemoteCommand.PROTOCOLS,
            protocol -> new SpdyRemoteCommand(options, protocol, run));
    if (rc != null) {
      ctx.channel()
          .eventLoop()
          .schedule(rc::closeUnlessStarted, STREAM_CREATION_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  /** {@code /portForward/{ns}/{pod}[/{uid}]}, with {@code ?port=} for a WebSocket. */
  public void portForward(
      ChannelHandlerContext ctx, HttpRequest req, Target t, Map<String, List<String>> query) {
    boolean webSocket = Upgrades.isWebSocket(req);
    List<Integer> ports =
        fromQuery(
            ctx, () -> webSocket ? WebSocketPortForward.parsePorts(query.get("port")) : List.of());
    if (ports == null) {
      return;
    }
    HttpRequest copy = copy(req);
    offLoop(
        ctx,
        () -> sandbox(t),
        sandboxId -> {
          PortForwardTarget target =
              new PortForwardTarget(
                  sandboxId,
                  (port, in, out) -> targets.runtime().portForward(sandboxId, port, in, out));
          if (webSocket) {
            WebSocketUpgrade.portForward(ctx, copy, target, ports);
            return;
          }
          Upgrades.toSpdy(
              ctx, copy, List.of(SpdyPortForward.PROTOCOL), p -> new SpdyPortForward(target));
        });
  }

  /**
   * {@code POST /run/{ns}/{pod}[/{uid}]/{container}?cmd=..}: runs the command (split on spaces) and
   * answers its combined output; a non-zero exit is a 500 with upstream's message.
   */
  public void run(ChannelHandlerContext ctx, Target t, Map<String, List<String>> query) {
    List<String> cmd = Arrays.asList(query.getOrDefault("cmd", List.of("")).get(0).split(" ", -1));
    boolean keepAlive = true;
    offLoop(
        ctx,
        () -> {
          String id = container(t);
          ExecResult r = targets.runtime().exec(id, cmd, null);
          if (r.exitCode() != 0) {
            throw new Refusal(
                HttpResponseStatus.INTERNAL_SERVER_ERROR,
                "command '"
                    + String.join(" ", cmd)
                    + "' exited with "
                    + r.exitCode()
                    + ": "
                    + r.output());
          }
          return r.output();
        },
        output -> {
          FullHttpResponse ok =
              new DefaultFullHttpResponse(
                  HttpVersion.HTTP_1_1,
                  HttpResponseStatus.OK,
                  Unpooled.copiedBuffer(output, StandardCharsets.UTF_8));
          ok.headers()
              .set(HttpHeaderNames.CONTENT_TYPE, "application/json")
              .setInt(HttpHeaderNames.CONTENT_LENGTH, ok.content().readableBytes());
          HttpUtil.setKeepAlive(ok, keepAlive);
          ctx.writeAndFlush(ok);
        });
  }

  /** An answer other than the upgrade. */
  private static final class Refusal extends RuntimeException {
    final HttpResponseStatus status;

    Refusal(HttpResponseStatus status, String message) {
      super(message, null, false, false);
      this.status = status;
    }
  }

  private String container(Target t) {
    Pod pod = pod(t);
    if (!targets.uidMatches(pod, t.uid())) {
      throw new Refusal(
          HttpResponseStatus.NOT_FOUND, "container not found (\"" + t.container() + "\")");
    }
    Optional<String> id = targets.runningContainer(pod, t.container());
    return id.orElseThrow(
        () ->
            new Refusal(
                HttpResponseStatus.NOT_FOUND, "container not found (\"" + t.container() + "\")"));
  }

  private String sandbox(Target t) {
    Pod pod = pod(t);
    if (!targets.uidMatches(pod, t.uid())) {
      throw new Refusal(HttpResponseStatus.NOT_FOUND, "pod not found");
    }
    return targets
        .runningSandbox(pod)
        .orElseThrow(
            () ->
                new Refusal(
                    HttpResponseStatus.NOT_FOUND,
                    "pod not found (\"" + t.pod() + "_" + t.namespace() + "\")"));
  }

  private Pod pod(Target t) {
    return targets
        .pod(t.namespace(), t.pod())
        .orElseThrow(() -> new Refusal(HttpResponseStatus.NOT_FOUND, "pod does not exist"));
  }

  /**
   * Runs {@code lookup} on a virtual thread with reading paused, then {@code then} on the channel's
   * event loop (not the handler's executor, which the HTTP layer may have made another); a {@link
   * Refusal} or runtime error becomes the answer instead.
   */
  private static <T> void offLoop(ChannelHandlerContext ctx, Supplier<T> lookup, Consumer<T> then) {
    ctx.channel().config().setAutoRead(false);
    Thread.ofVirtual()
        .name("streaming-lookup")
        .start(
            () -> {
              T value;
              try {
                value = lookup.get();
              } catch (Refusal r) {
                ctx.channel()
                    .eventLoop()
                    .execute(() -> Upgrades.refuse(ctx, Upgrades.text(r.status, r.getMessage())));
                return;
              } catch (RuntimeError | IllegalArgumentException e) {
                log.info("Streaming: lookup failed: {}", e.getMessage());
                ctx.channel()
                    .eventLoop()
                    .execute(
                        () ->
                            Upgrades.refuse(
                                ctx,
                                Upgrades.text(
                                    HttpResponseStatus.INTERNAL_SERVER_ERROR, e.getMessage())));
                return;
              }
              ctx.channel()
                  .eventLoop()
                  .execute(
                      () -> {
                        try {
                          then.accept(value);
                        } finally {
                          ctx.channel().config().setAutoRead(true);
                        }
                      });
            });
  }

  /** What {@code parse} makes of the query, or null once a 400 with its message has answered. */
  private static <T> T fromQuery(ChannelHandlerContext ctx, Supplier<T> parse) {
    try {
      return parse.get();
    } catch (IllegalArgumentException e) {
      Upgrades.refuse(ctx, Upgrades.text(HttpResponseStatus.BAD_REQUEST, e.getMessage()));
      return null;
    }
  }

  /** The request line and headers, without a body the HTTP layer may release. */
  private static HttpRequest copy(HttpRequest req) {
    FullHttpRequest copy =
        new DefaultFullHttpRequest(req.protocolVersion(), req.method(), req.uri());
    copy.headers().set(req.headers());
    return copy;
  }
}
