package io.jkubelet.agent.streaming;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;

/**
 * What the runtime writes to the client on one stream, as an {@link OutputStream}: each write
 * becomes one or more protocol frames ({@code frameOf}) written to the connection. A writer waits
 * while the connection is not writable (the client reads slower than the container writes), so
 * memory stays bounded; a write after the client went away throws {@link IOException}, which the
 * runtime takes as the end of the stream.
 *
 * <p>Each frame's bytes are copied once, into a buffer of the connection's pooled allocator that
 * the connection releases once it is sent: a {@code kubectl cp} or a port-forward moves tens of
 * megabytes, and a heap array per frame made a young collection every few megabytes.
 *
 * <p>NOTE: never write from the connection's event loop: the wait would block it. The runtime's
 * threads write. Thread-safe; frames of concurrent writers interleave whole.
 */
final class FrameOutput extends OutputStream {
  static final int MAX_FRAME = 32 * 1024;

  private final Channel channel;
  private final Framer frameOf;
  private volatile boolean closed;

  /** Makes one protocol frame of {@code len} bytes of {@code b}, in a buffer from {@code alloc}. */
  @FunctionalInterface
  interface Framer {
    Object frame(ByteBufAllocator alloc, byte[] b, int off, int len);
  }

  FrameOutput(Channel channel, Framer frameOf) {
    this.channel = channel;
    this.frameOf = frameOf;
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    for (int start = off; start < off + len; start += MAX_FRAME) {
      int n = Math.min(MAX_FRAME, off + len - start);
      send(frameOf.frame(channel.alloc(), b, start, n));
    }
  }

  /** Writes one frame as it is (an empty one too); waits while the connection is not writable. */
  void send(Object frame) throws IOException {
    if (closed || !channel.isActive()) {
      io.netty.util.ReferenceCountUtil.release(frame);
      throw new IOException("the client went away");
    }
    ChannelFuture written = channel.writeAndFlush(frame);
    if (!channel.isWritable()) {
      try {
        written.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while writing to the client");
      }
      if (!written.isSuccess()) {
        throw new IOException("the client went away", written.cause());
      }
    }
  }

  /** Later writes fail; nothing is sent. */
  void disable() {
    closed = true;
  }

  @Override
  public void close() {
    // The protocol ends streams (a FIN, the connection's close); closing the OutputStream does not.
  }
}
