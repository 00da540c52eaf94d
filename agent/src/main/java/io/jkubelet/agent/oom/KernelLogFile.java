package io.jkubelet.agent.oom;

import com.sun.jna.Function;
import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The kernel log ({@code /dev/kmsg}) opened without blocking, through the C library's {@code
 * open(2)} and {@code read(2)}: the JDK opens no file with {@code O_NONBLOCK}, and a blocking read
 * would hold a thread for the node's life (a platform thread, or a virtual thread's carrier). Each
 * {@link #read} gives one record, or nothing when none is waiting. The buffer is a Java array,
 * which JNA copies out: its own native memory would start its cleaner thread.
 *
 * <p>Not thread-safe: one reader at a time.
 */
final class KernelLogFile implements AutoCloseable {
  private static final int O_RDONLY = 0;
  private static final int O_NONBLOCK = 0x800;
  private static final int O_CLOEXEC = 0x80000;
  private static final int EINTR = 4;
  private static final int EAGAIN = 11;
  private static final int EPIPE = 32;

  /** What {@link #read} gives when no record is waiting. */
  static final int NONE = 0;

  /** What {@link #read} gives when records were overwritten before they were read. */
  static final int OVERRUN = -1;

  private final Path path;
  private int fd;

  private KernelLogFile(Path path, int fd) {
    this.path = path;
    this.fd = fd;
  }

  /** Opens {@code path} for reading without blocking. */
  static KernelLogFile open(Path path) throws IOException {
    try {
      int fd =
          Function.getFunction("c", "open", Function.THROW_LAST_ERROR)
              .invokeInt(new Object[] {path.toString(), O_RDONLY | O_NONBLOCK | O_CLOEXEC});
      return new KernelLogFile(path, fd);
    } catch (LastErrorException e) {
      throw new IOException(path + ": " + e.getMessage(), e);
    } catch (UnsatisfiedLinkError e) {
      throw new IOException(path + ": the C library's open(2) is not reachable: " + e, e);
    }
  }

  /**
   * Reads one record into {@code buf}: its length, {@link #NONE} when none is waiting (or a pipe's
   * writer is gone), or {@link #OVERRUN} when the kernel overwrote records this reader had not read
   * (the next read goes on from the oldest left).
   */
  int read(byte[] buf) throws IOException {
    if (fd < 0) {
      throw new IOException(path + " is closed");
    }
    while (true) {
      try {
        return (int)
            Function.getFunction("c", "read", Function.THROW_LAST_ERROR)
                .invokeLong(new Object[] {fd, buf, (long) buf.length});
      } catch (LastErrorException e) {
        switch (e.getErrorCode()) {
          case EINTR -> {}
          case EAGAIN -> {
            return NONE;
          }
          case EPIPE -> {
            return OVERRUN;
          }
          default -> throw new IOException(path + ": " + e.getMessage(), e);
        }
      }
    }
  }

  @Override
  public void close() {
    if (fd >= 0) {
      Function.getFunction("c", "close").invokeInt(new Object[] {fd});
      fd = -1;
    }
  }
}
