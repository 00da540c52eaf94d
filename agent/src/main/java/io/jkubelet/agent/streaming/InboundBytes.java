package io.jkubelet.agent.streaming;

import io.jkubelet.agent.util.Guard;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * What the client sends on one stream (stdin, a resize stream, a port-forward data stream), as an
 * {@link InputStream} that the runtime's threads read. The connection's event loop {@link #offer}s
 * chunks and never blocks; when more than {@link #HIGH_WATER} bytes wait, the {@code pause}
 * callback stops reading the connection ({@code true}), and resumes it ({@code false}) once a
 * reader has taken them below {@link #LOW_WATER}.
 *
 * <p>Thread-safe: {@code guard} guards every field. A blocked {@link #read} wakes on data, on
 * {@link #end}, and on interruption ({@link InterruptedIOException}, the flag restored).
 */
final class InboundBytes extends InputStream {
  static final int HIGH_WATER = 256 * 1024;
  static final int LOW_WATER = 64 * 1024;

  private final Guard guard = new Guard();
  private final ArrayDeque<byte[]> chunks = new ArrayDeque<>();
  private final Consumer<Boolean> pause;
  private int headOffset;
  private long buffered;
  private boolean ended;
  private boolean discarding;
  private boolean paused;

  /** {@code pause} is told to stop (true) or resume (false) reading from the client. */
  InboundBytes(Consumer<Boolean> pause) {
    this.pause = pause;
  }

  /** Adds what the client sent; ignored after {@link #end} or {@link #discard}. */
  void offer(byte[] chunk) {
    if (chunk.length == 0) {
      return;
    }
    boolean pauseNow =
        guard.get(
            () -> {
              if (ended || discarding) {
                return false;
              }
              chunks.add(chunk);
              buffered += chunk.length;
              guard.signalAll();
              if (buffered > HIGH_WATER && !paused) {
                paused = true;
                return true;
              }
              return false;
            });
    if (pauseNow) {
      pause.accept(true);
    }
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
    boolean resume =
        guard.get(
            () -> {
              discarding = true;
              chunks.clear();
              buffered = 0;
              boolean wasPaused = paused;
              paused = false;
              guard.signalAll();
              return wasPaused;
            });
    if (resume) {
      pause.accept(false);
    }
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  /** What one read took: how many bytes ({@code -1} at the end), and whether to resume reading. */
  private record Took(int n, boolean resume) {}

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    Took took;
    try {
      took = guard.call(() -> take(b, off, len));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading from the client");
    }
    if (took.resume()) {
      pause.accept(false);
    }
    return took.n();
  }

  /**
   * Under {@code guard}: waits for a chunk, then takes up to {@code len} bytes of the chunks that
   * wait: a reader that copies to a socket then writes what came in several frames at once.
   */
  private Took take(byte[] b, int off, int len) throws InterruptedException {
    while (chunks.isEmpty()) {
      if (ended || discarding) {
        return new Took(-1, false);
      }
      guard.pause();
    }
    int n = 0;
    while (n < len && !chunks.isEmpty()) {
      byte[] head = chunks.peek();
      int k = Math.min(len - n, head.length - headOffset);
      System.arraycopy(head, headOffset, b, off + n, k);
      n += k;
      headOffset += k;
      if (headOffset == head.length) {
        chunks.poll();
        headOffset = 0;
      }
    }
    buffered -= n;
    boolean resume = paused && buffered < LOW_WATER;
    if (resume) {
      paused = false;
    }
    return new Took(n, resume);
  }

  @Override
  public int available() {
    return guard.get(() -> (int) Math.min(Integer.MAX_VALUE, buffered));
  }

  @Override
  public void close() {
    discard();
  }
}
