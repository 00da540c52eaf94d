package io.jkubelet.agent.streaming;

import io.netty.channel.Channel;
import io.netty.handler.codec.spdy.DefaultSpdyDataFrame;
import io.netty.handler.codec.spdy.DefaultSpdyRstStreamFrame;
import io.netty.handler.codec.spdy.SpdyHeaders;
import io.netty.handler.codec.spdy.SpdyStreamStatus;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One stream of a SPDY connection that the client opened (SYN_STREAM): its headers, what the client
 * sends on it ({@link #input}), what the server writes ({@link #output}, as DATA frames), and the
 * server's end of it ({@link #finish}, a DATA frame with FIN). Thread-safe.
 */
final class SpdyStream {
  private final Channel channel;
  private final int id;
  private final SpdyHeaders headers;
  private final InboundBytes input;
  private final FrameOutput output;
  private final AtomicBoolean finished = new AtomicBoolean();

  /**
   * A stream of {@code channel}, whose reading every stream's input pauses through {@code pauses}.
   */
  SpdyStream(Channel channel, int id, SpdyHeaders headers, ReadPauses pauses) {
    this.channel = channel;
    this.id = id;
    this.headers = headers;
    this.input = new InboundBytes(pauses);
    this.output =
        new FrameOutput(
            channel,
            (alloc, b, off, len) ->
                new DefaultSpdyDataFrame(id, alloc.buffer(len).writeBytes(b, off, len)));
  }

  int id() {
    return id;
  }

  /** A header's value (SPDY header names are lower case), or "" if absent. */
  String header(String name) {
    String v = headers.getAsString(name.toLowerCase(Locale.ROOT));
    return v == null ? "" : v;
  }

  InboundBytes input() {
    return input;
  }

  FrameOutput output() {
    return output;
  }

  /** Ends the server's side: a FIN (once); later writes fail. */
  void finish() {
    if (finished.compareAndSet(false, true)) {
      output.disable();
      if (channel.isActive()) {
        DefaultSpdyDataFrame fin = new DefaultSpdyDataFrame(id);
        fin.setLast(true);
        channel.writeAndFlush(fin);
      }
    }
  }

  /** Writes the bytes, then {@link #finish}es; a client that is gone is no error. */
  void writeAndFinish(byte[] data) {
    try {
      if (data.length > 0) {
        output.write(data);
      }
    } catch (IOException e) {
      // the client went away: nothing to tell it
    }
    finish();
  }

  /** Aborts the stream (RST_STREAM, CANCEL); the client's side ends too. */
  void reset() {
    input.end();
    if (finished.compareAndSet(false, true)) {
      output.disable();
      if (channel.isActive()) {
        channel.writeAndFlush(new DefaultSpdyRstStreamFrame(id, SpdyStreamStatus.CANCEL));
      }
    }
  }

  /** The client reset the stream: nothing more comes, and nothing more may be sent. */
  void resetByClient() {
    input.end();
    finished.set(true);
    output.disable();
  }
}
