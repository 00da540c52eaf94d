package io.jkubelet.agent.server;

import io.jkubelet.agent.server.auth.Subject;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;

/**
 * A path (or family of paths) the kubelet API serves; what other packages register with {@link
 * KubeletServer} (logs, exec/attach/portForward, metrics, stats).
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>The server asks the routes in registration order; the first whose {@link #matches} is true
 *       gets the request. An unmatched path is a 404 {@code "404 page not found"}.
 *   <li>{@link #handle} is called only after the request was authenticated and authorized (the
 *       subresource comes from the path, see {@code auth.Attributes#of}), on the channel's Netty
 *       event loop, with auto-read on. It must not block there: work that blocks (runtime calls,
 *       file reads, following a log) goes to another thread and writes back through {@code
 *       ctx.channel()}, which Netty makes safe from any thread. A route that is only such work (a
 *       document to make and send) says so with {@link #blocking}: its {@code handle} is then
 *       called on the virtual thread that authorized the request, and may block.
 *   <li>The pipeline holds, in order, {@code "ssl"}, {@code "http"} (an {@code HttpServerCodec}),
 *       {@code "aggregator"} (an {@code HttpObjectAggregator}, so the request is full), {@code
 *       "chunked"} (a {@code ChunkedWriteHandler}) and {@code "router"}. A route answers with a
 *       full response (see {@link Responses}), or a streamed one ({@code HttpResponse}, then
 *       contents, then a {@code LastHttpContent}), and owns the request (releases nothing: the
 *       server releases it after {@code handle} returns; call {@code retain()} to keep it longer).
 *   <li>Protocol upgrades (SPDY/3.1, WebSocket): the route writes its 101 response, then replaces
 *       {@code "http"}, {@code "aggregator"}, {@code "chunked"} and {@code "router"} with its own
 *       handlers; from then on the connection is the route's, and the server only closes it at
 *       stop.
 *   <li>A route that fails with an exception gets a 500 and the connection is closed.
 * </ul>
 */
public interface Route {
  /** Whether this route serves the path (without the query string). */
  boolean matches(String path);

  /** Serves the request of an authenticated and authorized subject. */
  void handle(ChannelHandlerContext ctx, FullHttpRequest request, Subject subject);

  /**
   * Whether {@link #handle} blocks, and so is called off the event loop, on the thread that
   * authorized the request: two hand-overs fewer than going back to the loop and off it again.
   */
  default boolean blocking() {
    return false;
  }
}
