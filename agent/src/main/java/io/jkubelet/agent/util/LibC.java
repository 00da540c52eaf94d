package io.jkubelet.agent.util;

import com.sun.jna.Function;
import com.sun.jna.LastErrorException;
import java.io.IOException;

/**
 * The few calls of the C library that the JDK does not make for jkubelet, through JNA's {@link
 * Function}: {@code open(2)} with flags of the caller's ({@code O_NONBLOCK}), {@code read(2)} and
 * {@code close(2)} on such a descriptor, and {@code setns(2)}. Buffers are Java arrays, which JNA
 * copies in and out: its own native memory would start its cleaner thread. A failure is an {@link
 * IOException} whose message is the C library's ({@code strerror}), with the errno kept by {@link
 * #errno}.
 *
 * <p>Stateless; thread-safe.
 */
public final class LibC {
  public static final int O_RDONLY = 0;
  public static final int O_NONBLOCK = 0x800;
  public static final int O_CLOEXEC = 0x80000;
  public static final int EINTR = 4;
  public static final int EAGAIN = 11;
  public static final int EPIPE = 32;
  public static final int CLONE_NEWNET = 0x40000000;

  private LibC() {}

  /** {@code open(path, flags)}: the descriptor. */
  public static int open(String path, int flags) throws IOException {
    return call("open", path, new Object[] {path, flags}).intValue();
  }

  /** {@code read(fd, buf, buf.length)}: the bytes read, 0 at the end. */
  public static int read(int fd, byte[] buf) throws IOException {
    return call("read", "fd " + fd, new Object[] {fd, buf, (long) buf.length}).intValue();
  }

  /** {@code close(fd)}; a failure is ignored, as there is nothing left to do with the fd. */
  public static void close(int fd) {
    Function.getFunction("c", "close").invokeInt(new Object[] {fd});
  }

  /** {@code setns(fd, nstype)}: moves the calling thread into the namespace {@code fd} is. */
  public static void setns(int fd, int nstype) throws IOException {
    call("setns", "fd " + fd, new Object[] {fd, nstype});
  }

  /** The errno of a failure of this class's calls, or 0 for another exception. */
  public static int errno(IOException e) {
    return e.getCause() instanceof LastErrorException l ? l.getErrorCode() : 0;
  }

  private static Long call(String name, String what, Object[] args) throws IOException {
    try {
      return Function.getFunction("c", name, Function.THROW_LAST_ERROR).invokeLong(args);
    } catch (LastErrorException e) {
      throw new IOException(name + " " + what + ": " + strerror(e), e);
    } catch (UnsatisfiedLinkError e) {
      throw new IOException("the C library's " + name + " is not reachable: " + e, e);
    }
  }

  /** JNA's message is "[errno] text"; the text alone. */
  private static String strerror(LastErrorException e) {
    String m = String.valueOf(e.getMessage());
    int end = m.startsWith("[") ? m.indexOf("] ") : -1;
    return end > 0 ? m.substring(end + 2) : m;
  }
}
