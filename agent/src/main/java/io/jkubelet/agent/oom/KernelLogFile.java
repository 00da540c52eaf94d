package io.jkubelet.agent.oom;

import io.jkubelet.agent.util.LibC;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The kernel log ({@code /dev/kmsg}) opened without blocking ({@link LibC}): the JDK opens no file
 * with {@code O_NONBLOCK}, and a blocking read would hold a thread for the node's life (a platform
 * thread, or a virtual thread's carrier). Each {@link #read} gives one record, or nothing when none
 * is waiting.
 *
 * <p>Not thread-safe: one reader at a time.
 */
final class KernelLogFile implements AutoCloseable {
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
    return new KernelLogFile(
        path, LibC.open(path.toString(), LibC.O_RDONLY | LibC.O_NONBLOCK | LibC.O_CLOEXEC));
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
    try {
      return LibC.readAvailable(fd, buf);
    } catch (IOException e) {
      if (LibC.errno(e) == LibC.EPIPE) {
        return OVERRUN;
      }
      throw new IOException(path + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    if (fd >= 0) {
      LibC.close(fd);
      fd = -1;
    }
  }
}
