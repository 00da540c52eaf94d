package io.jkubelet.agent.runtime.docker;

import io.jkubelet.agent.runtime.StreamHandle;
import io.jkubelet.agent.runtime.StreamIo;
import io.jkubelet.agent.runtime.TerminalSize;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's streams joined to an engine's hijacked exec or attach connection: one virtual thread
 * copies the client's stdin into the connection and half-closes it at the end; another reads the
 * engine's output, splits Docker's multiplexed frames (8-byte header: stream type, three zero
 * bytes, big-endian length) into stdout and stderr, or copies a TTY's raw bytes, and ends the
 * stream when the engine closes it.
 *
 * <p>Thread-safe. {@link #close} runs the abort action (for an exec: end the process if it still
 * runs), then closes the connection and stops both threads; a client whose output write fails is
 * treated the same.
 */
final class AttachedStream implements StreamHandle {
  private static final Logger log = LoggerFactory.getLogger(AttachedStream.class);
  private static final int BUFFER = 32 * 1024;

  private final String what;
  private final Hijack conn;
  private final StreamIo io;
  private final boolean raw;
  private final Consumer<TerminalSize> resizer;
  private final IntSupplier exitCode;
  private final Runnable onAbort;
  private final CountDownLatch outputDone = new CountDownLatch(1);
  private final AtomicBoolean aborted = new AtomicBoolean();
  private volatile Thread inPump;

  /**
   * @param what names the stream in logs, e.g. "exec abc in 1234"
   * @param raw whether the engine's output is a TTY's raw bytes rather than multiplexed frames
   * @param exitCode tells the exit code once the output ended normally
   * @param onAbort runs once when the stream is closed before it ended by itself
   */
  AttachedStream(
      String what,
      Hijack conn,
      StreamIo io,
      boolean raw,
      Consumer<TerminalSize> resizer,
      IntSupplier exitCode,
      Runnable onAbort) {
    this.what = what;
    this.conn = conn;
    this.io = io;
    this.raw = raw;
    this.resizer = resizer;
    this.exitCode = exitCode;
    this.onAbort = onAbort;
  }

  /** Starts the two copying threads. */
  AttachedStream start() {
    if (io.stdin() != null) {
      inPump = Thread.ofVirtual().name("docker-stream-stdin").start(this::copyStdin);
    }
    Thread.ofVirtual().name("docker-stream-output").start(this::copyOutput);
    return this;
  }

  private void copyStdin() {
    byte[] buf = new byte[BUFFER];
    try {
      InputStream in = io.stdin();
      OutputStream out = conn.output();
      int n;
      while ((n = in.read(buf)) >= 0) {
        out.write(buf, 0, n);
      }
      conn.closeInput();
      log.debug("DockerRuntime: {}: stdin ended", what);
    } catch (IOException e) {
      log.debug("DockerRuntime: {}: stdin stopped: {}", what, e.toString());
    }
  }

  private void copyOutput() {
    try {
      if (raw) {
        copyRaw(conn.input(), io.stdout() != null ? io.stdout() : io.stderr());
      } else {
        demultiplex(new DataInputStream(conn.input()));
      }
      log.debug("DockerRuntime: {}: output ended", what);
    } catch (ClientGone e) {
      log.debug("DockerRuntime: {}: the client went away: {}", what, e.getCause().toString());
      close();
    } catch (IOException e) {
      log.debug("DockerRuntime: {}: output stopped: {}", what, e.toString());
    } finally {
      outputDone.countDown();
      if (!aborted.get()) {
        conn.close(); // else close() does, once the abort is done
      }
      Thread in = inPump;
      if (in != null) {
        in.interrupt(); // the client's stdin may stay open after the process ended
      }
    }
  }

  private static void copyRaw(InputStream from, OutputStream to) throws IOException {
    byte[] buf = new byte[BUFFER];
    int n;
    while ((n = from.read(buf)) >= 0) {
      write(to, buf, n);
    }
  }

  private void demultiplex(DataInputStream from) throws IOException {
    byte[] header = new byte[8];
    byte[] buf = new byte[BUFFER];
    while (true) {
      try {
        from.readFully(header);
      } catch (EOFException e) {
        return;
      }
      OutputStream to = header[0] == 2 ? io.stderr() : io.stdout();
      long left =
          ((header[4] & 0xffL) << 24)
              | ((header[5] & 0xff) << 16)
              | ((header[6] & 0xff) << 8)
              | (header[7] & 0xff);
      while (left > 0) {
        int n = from.read(buf, 0, (int) Math.min(buf.length, left));
        if (n < 0) {
          return;
        }
        left -= n;
        if (to != null) {
          write(to, buf, n);
        }
      }
    }
  }

  private static void write(OutputStream to, byte[] buf, int n) throws ClientGone {
    if (to == null) {
      return;
    }
    try {
      to.write(buf, 0, n);
      to.flush();
    } catch (IOException e) {
      throw new ClientGone(e);
    }
  }

  @Override
  public int await() throws InterruptedException {
    outputDone.await();
    return aborted.get() ? NO_EXIT_CODE : exitCode.getAsInt();
  }

  @Override
  public void resize(TerminalSize size) {
    if (io.tty() && outputDone.getCount() > 0) {
      resizer.accept(size);
    }
  }

  @Override
  public void close() {
    if (outputDone.getCount() == 0 || !aborted.compareAndSet(false, true)) {
      return;
    }
    log.debug("DockerRuntime: {}: closed by the caller", what);
    // First the abort, then the connection: an exec whose output meets a closed connection is
    // ended for Docker (exit code 126, no longer listed) while its process runs on.
    onAbort.run();
    conn.close();
    Thread in = inPump;
    if (in != null) {
      in.interrupt();
    }
  }

  /** A write to the client failed: the client went away. */
  private static final class ClientGone extends IOException {
    ClientGone(IOException cause) {
      super(cause);
    }
  }
}
