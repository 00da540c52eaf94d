package io.jkubelet.agent.streaming;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.spdy.DefaultSpdyGoAwayFrame;
import io.netty.handler.codec.spdy.DefaultSpdyPingFrame;
import io.netty.handler.codec.spdy.DefaultSpdyRstStreamFrame;
import io.netty.handler.codec.spdy.DefaultSpdySynReplyFrame;
import io.netty.handler.codec.spdy.SpdyDataFrame;
import io.netty.handler.codec.spdy.SpdyGoAwayFrame;
import io.netty.handler.codec.spdy.SpdyPingFrame;
import io.netty.handler.codec.spdy.SpdyRstStreamFrame;
import io.netty.handler.codec.spdy.SpdyStreamStatus;
import io.netty.handler.codec.spdy.SpdySynStreamFrame;
import io.netty.util.ReferenceCountUtil;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's side of a SPDY/3.1 connection after the upgrade, as Go's {@code spdystream} (which
 * kubectl and the API server use) expects it: each SYN_STREAM from the client is offered to the
 * {@link Acceptor}, then answered with a SYN_REPLY (accepted) or a RST_STREAM (refused); DATA goes
 * to the stream's input, FIN ends it, RST_STREAM aborts it; PINGs are echoed. Frames are decoded
 * and encoded by Netty's {@code SpdyFrameCodec} ahead of this handler.
 *
 * <p>NOTE: no flow control. {@code spdystream} neither sends WINDOW_UPDATE nor honours it, so
 * Netty's {@code SpdySessionHandler} (which does) would stall after the first 64 KiB; memory is
 * bounded instead by {@link FrameOutput}'s wait on the connection's writability and {@link
 * InboundBytes}' pause of reading.
 *
 * <p>Handler methods run on the event loop; {@link #finish} may be called from any thread.
 */
final class SpdyConnection extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(SpdyConnection.class);

  /**
   * The most streams open at once on one connection. Exec and attach use up to five, and a
   * port-forward two per forwarded connection; a client that opens more (streams it never closes)
   * has the rest refused rather than growing the map for as long as the connection lasts.
   */
  static final int MAX_OPEN_STREAMS = 1000;

  /** How long the client has, after the server's GOAWAY, to close the connection itself. */
  static final long CLOSE_GRACE_SECONDS = 10;

  /** Decides about a stream the client opens; called on the event loop. */
  interface Acceptor {
    /** Returns null to accept, or why the stream is refused. */
    String accept(SpdyStream stream);

    /** Called on the event loop once the SYN_REPLY of an accepted stream has been written. */
    void replied(SpdyStream stream);

    /** The client went away (the connection closed or a GOAWAY came). */
    void clientGone();

    /** Called once, before the upgrade, with the connection this acceptor decides for. */
    default void attachTo(SpdyConnection connection) {}
  }

  private final Acceptor acceptor;
  private final Map<Integer, SpdyStream> streams = new ConcurrentHashMap<>();
  private ReadPauses pauses; // the connection's, made at its first stream (on its event loop)

  /** Streams refused on this connection (read and written on its event loop only). */
  private long refusals;

  private volatile ChannelHandlerContext ctx;

  SpdyConnection(Acceptor acceptor) {
    this.acceptor = acceptor;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    log.trace("Streaming: SPDY frame {}", msg);
    try {
      switch (msg) {
        case SpdySynStreamFrame syn -> open(ctx, syn);
        case SpdyDataFrame data -> data(data);
        case SpdyRstStreamFrame rst -> {
          SpdyStream s = streams.remove(rst.streamId());
          if (s != null) {
            s.resetByClient();
          }
        }
        case SpdyPingFrame ping -> {
          if ((ping.id() & 1) == 1) {
            ctx.writeAndFlush(new DefaultSpdyPingFrame(ping.id())); // the client's: echo it
          }
        }
        case SpdyGoAwayFrame goAway -> acceptor.clientGone();
        default -> log.trace("Streaming: ignored SPDY frame {}", msg);
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void open(ChannelHandlerContext ctx, SpdySynStreamFrame syn) {
    if (pauses == null) {
      pauses = new ReadPauses(ctx.channel());
    }
    SpdyStream stream = new SpdyStream(ctx.channel(), syn.streamId(), syn.headers(), pauses);
    String refused =
        streams.containsKey(syn.streamId())
            ? "stream id in use"
            : streams.size() >= MAX_OPEN_STREAMS
                ? MAX_OPEN_STREAMS + " streams already open on this connection"
                : acceptor.accept(stream);
    if (refused != null) {
      // A client that goes on opening streams after a refusal gets one line at INFO, not one each.
      if (refusals++ == 0) {
        log.info("Streaming: stream rejected: {} (more on this connection at DEBUG)", refused);
      } else {
        log.debug("Streaming: stream rejected: {} ({} on this connection)", refused, refusals);
      }
      ctx.writeAndFlush(new DefaultSpdyRstStreamFrame(syn.streamId(), SpdyStreamStatus.CANCEL));
      return;
    }
    streams.put(syn.streamId(), stream);
    if (syn.isLast()) {
      stream.input().end();
    }
    ctx.writeAndFlush(reply(syn.streamId()))
        .addListener(
            f -> {
              if (f.isSuccess()) {
                acceptor.replied(stream);
              }
            });
  }

  /**
   * The SYN_REPLY of an accepted stream.
   *
   * <p>NOTE: it carries one header. Netty encodes an empty header set as no header block at all,
   * which Go's SPDY framer cannot read (it expects at least the compressed header count), so
   * spdystream would never see the reply and time out.
   */
  static DefaultSpdySynReplyFrame reply(int streamId) {
    DefaultSpdySynReplyFrame reply = new DefaultSpdySynReplyFrame(streamId);
    reply.headers().set("x-accepted", "1");
    return reply;
  }

  private void data(SpdyDataFrame data) {
    SpdyStream s = streams.get(data.streamId());
    if (s == null) {
      return; // a stream we refused or reset: drop, as spdystream does
    }
    if (data.content().isReadable()) {
      s.input().offer(data.content());
    }
    if (data.isLast()) {
      s.input().end();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    streams.values().forEach(SpdyStream::resetByClient);
    acceptor.clientGone();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("Streaming: SPDY connection failed: {}", cause.toString());
    ctx.close();
  }

  /** Forgets a stream (both sides are done with it). */
  void forget(SpdyStream stream) {
    streams.remove(stream.id());
  }

  /**
   * Ends the connection: FIN on every stream still open, a GOAWAY, and the close, which is left to
   * the client for {@link #CLOSE_GRACE_SECONDS} so that it reads everything first.
   */
  void finish() {
    ChannelHandlerContext c = ctx;
    if (c == null || !c.channel().isActive()) {
      return;
    }
    streams.values().forEach(SpdyStream::finish);
    c.writeAndFlush(new DefaultSpdyGoAwayFrame(0));
    // NOTE: Netty's own timer (the event loop), as its idle handlers use; no agent clock involved.
    c.executor()
        .schedule(
            () -> {
              if (c.channel().isActive()) {
                c.close();
              }
            },
            CLOSE_GRACE_SECONDS,
            TimeUnit.SECONDS);
  }

  /** Closes the connection at once. */
  void close() {
    ChannelHandlerContext c = ctx;
    if (c != null) {
      c.writeAndFlush(new DefaultSpdyGoAwayFrame(0)).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
