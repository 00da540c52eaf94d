package io.jkubelet.agent.streaming;

import io.jkubelet.agent.util.Guard;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.function.Consumer;

/**
 * What the client sends on one stream (stdin, a resize stream, a port-forward data stream), as an
 * {@link InputStream} that the runtime's threads read. The connection's event loop {@link #offer}s
 * chunks and never blocks; when more than {@link #HIGH_WATER} bytes wait, the {@code pause}
 * callback stops reading the connection ({@code true}), and resumes it ({@code false}) once a
 * reader has taken them below {@link #LOW_WATER}. The callback is called under the same lock as the
 * count it follows, so that the connection's reading is always as the last change of the count
 * wants: called after the lock, a reader's resume could overtake the event loop's pause that came
 * after it, and reading then went on unpaused (a {@code kubectl cp} buffered megabytes here).
 * {@code pause} must not block: changing a channel's auto-read does not.
 *
 * <p>What waits is kept in one ring of bytes, grown (by doubling) only when a chunk does not fit: a
 * chunk is copied into it once, and nothing is allocated per chunk. A {@code kubectl cp} of 50 MB
 * arrives in thousands of frames, and an array per frame made a young collection every few
 * megabytes.
 *
 * <p>Thread-safe: {@code guard} guards every field. A blocked {@link #read} wakes on data, on
 * {@link #end}, and on interruption ({@link InterruptedIOException}, the flag restored).
 */
final class InboundBytes extends InputStream {
  static final int HIGH_WATER = 256 * 1024;
  static final int LOW_WATER = 64 * 1024;
  private static final int FIRST_RING = 4 * 1024;
  private static final byte[] NONE = new byte[0];

  private final Guard guard = new Guard();
  private final Consumer<Boolean> pause;
  private byte[] ring = NONE;
  private int head;
  private int buffered;
  private boolean ended;
  private boolean discarding;
  private boolean paused;

  /** {@code pause} is told to stop (true) or resume (false) reading from the client. */
  InboundBytes(Consumer<Boolean> pause) {
    this.pause = pause;
  }

  /** Adds what the client sent; ignored after {@link #end} or {@link #discard}. */
  void offer(byte[] chunk) {
    offer(Unpooled.wrappedBuffer(chunk));
  }

  /**
   * Adds the readable bytes of {@code chunk} (copied; the caller keeps the buffer and its reference
   * count); ignored after {@link #end} or {@link #discard}.
   */
  void offer(ByteBuf chunk) {
    int n = chunk.readableBytes();
    if (n == 0) {
      return;
    }
    guard.run(
        () -> {
          if (ended || discarding) {
            return;
          }
          append(chunk, n);
          guard.signalAll();
          if (buffered > HIGH_WATER && !paused) {
            paused = true;
            pause.accept(true);
          }
        });
  }

  /** Under {@code guard}: copies {@code n} bytes of {@code chunk} behind what waits. */
  private void append(ByteBuf chunk, int n) {
    if (buffered + n > ring.length) {
      int size = Math.max(ring.length, FIRST_RING);
      while (size < buffered + n) {
        size *= 2;
      }
      byte[] grown = new byte[size];
      copyOut(grown, 0, buffered);
      ring = grown;
      head = 0;
    }
    int tail = (head + buffered) % ring.length;
    int first = Math.min(n, ring.length - tail);
    int from = chunk.readerIndex();
    chunk.getBytes(from, ring, tail, first);
    chunk.getBytes(from + first, ring, 0, n - first);
    buffered += n;
  }

  /** Under {@code guard}: copies the first {@code n} waiting bytes to {@code b}, leaving them. */
  private void copyOut(byte[] b, int off, int n) {
    int first = Math.min(n, ring.length - head);
    System.arraycopy(ring, head, b, off, first);
    System.arraycopy(ring, 0, b, off + first, n - first);
  }

  /** The client's end of this stream: readers get the rest, then -1. */
  void end() {
    guard.run(
        () -> {
          ended = true;
          guard.signalAll();
        });
  }

  /** Nobody reads any more: drops what waits and what comes, so the connection is never paused. */
  void discard() {
    guard.run(
        () -> {
          discarding = true;
          ring = NONE;
          head = 0;
          buffered = 0;
          guard.signalAll();
          if (paused) {
            paused = false;
            pause.accept(false);
          }
        });
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    try {
      return guard.call(() -> take(b, off, len));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading from the client");
    }
  }

  /**
   * Under {@code guard}: waits for bytes, then takes up to {@code len} of all that wait: a reader
   * that copies to a socket then writes what came in several frames at once.
   */
  private int take(byte[] b, int off, int len) throws InterruptedException {
    while (buffered == 0) {
      if (ended || discarding) {
        return -1;
      }
      guard.pause();
    }
    int n = Math.min(len, buffered);
    copyOut(b, off, n);
    head = (head + n) % ring.length;
    buffered -= n;
    if (paused && buffered < LOW_WATER) {
      paused = false;
      pause.accept(false);
    }
    return n;
  }

  @Override
  public int available() {
    return guard.get(() -> buffered);
  }

  @Override
  public void close() {
    discard();
  }
}
