package io.jkubelet.agent.streaming;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * What the client sends on one stream (stdin, a resize stream, a port-forward data stream), as an
 * {@link InputStream} that the runtime's threads read. The connection's event loop {@link #offer}s
 * chunks and never blocks; when more than {@link #HIGH_WATER} bytes wait, the {@code pause}
 * callback stops reading the connection ({@code true}), and resumes it ({@code false}) once a
 * reader has taken them below {@link #LOW_WATER}.
 *
 * <p>Thread-safe: {@code lock} guards every field. A blocked {@link #read} wakes on data, on {@link
 * #end}, and on interruption ({@link InterruptedIOException}, the flag restored).
 */
final class InboundBytes extends InputStream {
  static final int HIGH_WATER = 256 * 1024;
  static final int LOW_WATER = 64 * 1024;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
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
    boolean pauseNow = false;
    lock.lock();
    try {
      if (ended || discarding) {
        return;
      }
      chunks.add(chunk);
      buffered += chunk.length;
      if (buffered > HIGH_WATER && !paused) {
        paused = pauseNow = true;
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (pauseNow) {
      pause.accept(true);
    }
  }

  /** The client's end of this stream: readers get the rest, then -1. */
  void end() {
    lock.lock();
    try {
      ended = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Nobody reads any more: drops what waits and what comes, so the connection is never paused. */
  void discard() {
    boolean resume;
    lock.lock();
    try {
      discarding = true;
      chunks.clear();
      buffered = 0;
      resume = paused;
      paused = false;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (resume) {
      pause.accept(false);
    }
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
    int n;
    boolean resume = false;
    lock.lock();
    try {
      while (chunks.isEmpty()) {
        if (ended || discarding) {
          return -1;
        }
        try {
          changed.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while reading from the client");
        }
      }
      byte[] head = chunks.peek();
      n = Math.min(len, head.length - headOffset);
      System.arraycopy(head, headOffset, b, off, n);
      headOffset += n;
      if (headOffset == head.length) {
        chunks.poll();
        headOffset = 0;
      }
      buffered -= n;
      if (paused && buffered < LOW_WATER) {
        paused = false;
        resume = true;
      }
    } finally {
      lock.unlock();
    }
    if (resume) {
      pause.accept(false);
    }
    return n;
  }

  @Override
  public int available() {
    lock.lock();
    try {
      return (int) Math.min(Integer.MAX_VALUE, buffered);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    discard();
  }
}
