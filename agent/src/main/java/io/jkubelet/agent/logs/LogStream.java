package io.jkubelet.agent.logs;

import io.jkubelet.agent.runtime.LogSink;
import io.netty.buffer.Unpooled;
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
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log response: the chunked 200 header, the runtime's output as chunks (at most {@code
 * limitBytes}), then the last chunk. Backpressure: a chunk waits (on the runtime's thread) while
 * the channel is not writable. The runtime's stream is closed when the output ends, the limit is
 * reached or the client goes away, whichever comes first, exactly once.
 */
final class LogStream implements LogSink {
  private static final Logger log = LoggerFactory.getLogger(LogStream.class);

  private final Channel channel;
  private final boolean keepAlive;
  private long remaining;
  private final AtomicBoolean done = new AtomicBoolean();
  private volatile AutoCloseable source;
  private ChannelFuture last;

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
    channel.closeFuture().addListener(f -> finish(false));
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
    ChannelFuture f;
    synchronized (this) {
      f = channel.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(bytes, 0, n)));
      last = f;
    }
    if (remaining == 0) {
      finish(true);
      return;
    }
    if (!channel.isWritable()) {
      f.awaitUninterruptibly();
    }
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
    if (writeLast && channel.isActive()) {
      ChannelFuture f = channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
      if (!keepAlive) {
        f.addListener(ChannelFutureListener.CLOSE);
      }
    }
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
