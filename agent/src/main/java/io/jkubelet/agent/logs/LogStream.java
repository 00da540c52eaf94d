package io.jkubelet.agent.logs;

import io.jkubelet.agent.runtime.LogSink;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log response: the chunked 200 header, the runtime's output as chunks (at most {@code
 * limitBytes}), then the last chunk. Output is gathered into chunks of up to {@link #CHUNK} bytes,
 * sent when full, when the runtime has nothing more at hand ({@link #flush}), or {@link
 * #LINGER_MILLIS} after the first byte of a chunk, so that a long log goes out in few large TLS
 * records and a followed one line by line without noticeable delay. Backpressure: a chunk waits (on
 * the runtime's thread) while the channel is not writable. The runtime's stream is closed when the
 * output ends, the limit is reached or the client goes away, whichever comes first, exactly once.
 */
final class LogStream implements LogSink {
  private static final Logger log = LoggerFactory.getLogger(LogStream.class);

  static final int CHUNK = 64 * 1024;

  /** How long gathered output may wait for more before it is sent anyway. */
  static final long LINGER_MILLIS = 5;

  private final Channel channel;
  private ByteBuf pending;
  private final boolean keepAlive;
  private long remaining;
  private final AtomicBoolean done = new AtomicBoolean();
  private volatile AutoCloseable source;
  private ChannelFuture last;

  /**
   * Ends the response when the client goes away; removed when it ends, since a kept-alive
   * connection would otherwise hold every response it carried (and its runtime stream).
   */
  private final ChannelFutureListener onClose = f -> finish(false);

  LogStream(ChannelHandlerContext ctx, HttpRequest req, OptionalLong limitBytes) {
    this.channel = ctx.channel();
    this.keepAlive = HttpUtil.isKeepAlive(req);
    this.remaining = limitBytes.orElse(Long.MAX_VALUE);
  }

  /** Opens the runtime's stream (blocking: call off the event loop) and starts the response. */
  void open(Callable<AutoCloseable> opener) {
    HttpResponse res = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    res.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
    res.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    HttpUtil.setKeepAlive(res, keepAlive);
    synchronized (this) {
      last = channel.writeAndFlush(res);
    }
    channel.closeFuture().addListener(onClose);
    try {
      source = opener.call();
      if (done.get() || !channel.isActive()) {
        closeSource();
      }
    } catch (Exception e) {
      log.warn("containerLogs: cannot read the container's output: {}", e.toString());
      finish(true);
    }
  }

  /** Whether the response is over (ended, at its limit, or the client went away). */
  boolean isDone() {
    return done.get();
  }

  @Override
  public void output(byte[] bytes) {
    if (done.get()) {
      return;
    }
    int n = (int) Math.min(bytes.length, remaining);
    remaining -= n;
    ChannelFuture f = null;
    synchronized (this) {
      if (done.get()) {
        return; // finished meanwhile: what it held is sent or released
      }
      if (pending == null) {
        pending = channel.alloc().buffer(Math.max(n, CHUNK));
        // A runtime that never says it is idle still gets its output out within LINGER.
        channel.eventLoop().schedule(this::sendPendingNow, LINGER_MILLIS, TimeUnit.MILLISECONDS);
      }
      pending.writeBytes(bytes, 0, n);
      if (pending.readableBytes() >= CHUNK) {
        f = sendPending();
      }
    }
    if (remaining == 0) {
      finish(true);
      return;
    }
    if (f != null && !channel.isWritable()) {
      f.awaitUninterruptibly();
    }
  }

  @Override
  public void flush() {
    ChannelFuture f;
    synchronized (this) {
      f = sendPending();
    }
    if (f != null && !channel.isWritable()) {
      f.awaitUninterruptibly();
    }
  }

  private synchronized void sendPendingNow() {
    if (!done.get()) {
      sendPending();
    }
  }

  /** Sends what is gathered as one chunk; null when nothing is. Holds the lock. */
  private ChannelFuture sendPending() {
    if (pending == null) {
      return null;
    }
    if (pending.readableBytes() == 0) {
      pending.release();
      pending = null;
      return null;
    }
    ByteBuf chunk = pending;
    pending = null;
    last = channel.writeAndFlush(new DefaultHttpContent(chunk));
    return last;
  }

  @Override
  public void end(Throwable error) {
    if (error != null) {
      log.debug("containerLogs: the output ended with {}", error.toString());
    }
    finish(true);
  }

  private void finish(boolean writeLast) {
    if (!done.compareAndSet(false, true)) {
      return;
    }
    synchronized (this) {
      if (writeLast && channel.isActive()) {
        sendPending();
      } else if (pending != null) {
        pending.release();
        pending = null;
      }
    }
    if (writeLast && channel.isActive()) {
      ChannelFuture f = channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
      if (!keepAlive) {
        f.addListener(ChannelFutureListener.CLOSE);
      }
    }
    channel.closeFuture().removeListener(onClose);
    closeSource();
  }

  private void closeSource() {
    AutoCloseable s = source;
    if (s != null) {
      try {
        s.close();
      } catch (Exception e) {
        log.debug("containerLogs: closing the runtime's stream: {}", e.toString());
      }
    }
  }
}
