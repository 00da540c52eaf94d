package io.jkubelet.agent.util;

import com.sun.jna.Function;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The few calls of the C library that the JDK does not make for jkubelet, through JNA: {@code
 * open(2)} with flags of the caller's ({@code O_NONBLOCK}), {@code read(2)} and {@code close(2)} on
 * such a descriptor, {@code setns(2)}, {@code statvfs(3)}, {@code getrlimit(2)} and {@code
 * setrlimit(2)}, {@code inotify_init1(2)} and {@code inotify_add_watch(2)}, and {@code
 * malloc_trim(3)}. A failure (-1) is an {@link IOException} whose message is the C library's
 * ({@code strerror}), with the errno kept by {@link #errno}.
 *
 * <p>NOTE: JNA frees its native objects on a thread of its own ("JNA Cleaner"), which lives as long
 * as any such object does and ends 30 s after the last one goes. So nothing of JNA's is kept: the
 * functions' addresses are looked up once, in the C library that every JVM has loaded, and the
 * library handle is closed again; paths and buffers are Java arrays, which JNA copies in and out
 * (its own native memory, a {@code String} argument's too, would be such an object).
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

  private static final List<String> NAMES =
      List.of(
          "open",
          "read",
          "close",
          "setns",
          "statvfs",
          "getrlimit",
          "setrlimit",
          "inotify_init1",
          "inotify_add_watch",
          "malloc_trim",
          "strerror");

  private LibC() {}

  /** {@code open(path, flags)}: the descriptor. */
  public static int open(String path, int flags) throws IOException {
    return call("open", path, cString(path), flags);
  }

  /** {@code read(fd, buf, buf.length)}: the bytes read, 0 at the end. */
  public static int read(int fd, byte[] buf) throws IOException {
    long n = function("read").invokeLong(new Object[] {fd, buf, (long) buf.length});
    if (n < 0) {
      throw failure("read", "fd " + fd);
    }
    return (int) n;
  }

  /**
   * {@code read(2)} on a descriptor opened with {@link #O_NONBLOCK}: the bytes read, 0 when nothing
   * is waiting ({@code EAGAIN}) or at the end; retried when a signal interrupts it.
   */
  public static int readAvailable(int fd, byte[] buf) throws IOException {
    while (true) {
      try {
        return read(fd, buf);
      } catch (IOException e) {
        switch (errno(e)) {
          case EINTR -> {}
          case EAGAIN -> {
            return 0;
          }
          default -> throw e;
        }
      }
    }
  }

  /** {@code close(fd)}; a failure is ignored, as there is nothing left to do with the fd. */
  public static void close(int fd) {
    try {
      call("close", "fd " + fd, fd);
    } catch (IOException ignored) {
      // nothing left to do with it
    }
  }

  /** {@code setns(fd, nstype)}: moves the calling thread into the namespace {@code fd} is. */
  public static void setns(int fd, int nstype) throws IOException {
    call("setns", "fd " + fd, fd, nstype);
  }

  /**
   * {@code statvfs(path)}: f_bsize, f_frsize, f_blocks, f_bfree, f_bavail, f_files, f_ffree (the
   * 64-bit Linux layout, eight bytes each).
   */
  public static long[] statvfs(String path) throws IOException {
    long[] buf = new long[32]; // struct statvfs is 112 bytes; 256 leave room
    call("statvfs", path, cString(path), buf);
    return Arrays.copyOf(buf, 7);
  }

  /** {@code getrlimit(resource)}: the soft and the hard limit. */
  public static long[] getrlimit(int resource) throws IOException {
    long[] limit = new long[2];
    call("getrlimit", "resource " + resource, resource, limit);
    return limit;
  }

  /** {@code setrlimit(resource, {soft, hard})}. */
  public static void setrlimit(int resource, long soft, long hard) throws IOException {
    call("setrlimit", "resource " + resource, resource, new long[] {soft, hard});
  }

  /** {@code inotify_init1(flags)}: the descriptor (flags as {@code open}'s: O_NONBLOCK, ...). */
  public static int inotifyInit(int flags) throws IOException {
    return call("inotify_init1", "", flags);
  }

  /** {@code inotify_add_watch(fd, path, mask)}: the watch descriptor. */
  public static int inotifyAddWatch(int fd, String path, int mask) throws IOException {
    return call("inotify_add_watch", path, fd, cString(path), mask);
  }

  /** {@code malloc_trim(0)}: whether memory was given back to the kernel. */
  public static boolean mallocTrim() throws IOException {
    return function("malloc_trim").invokeInt(new Object[] {0L}) != 0;
  }

  /** The errno of a failure of this class's calls, or 0 for another exception. */
  public static int errno(IOException e) {
    return e instanceof Failure f ? f.errno : 0;
  }

  /** A call that failed: the C library's message, and its errno. */
  static final class Failure extends IOException {
    private final int errno;

    Failure(String message, int errno) {
      super(message);
      this.errno = errno;
    }
  }

  /** Calls a function that gives -1 on failure, and errno. */
  private static int call(String name, String what, Object... args) throws IOException {
    int rc = function(name).invokeInt(args);
    if (rc == -1) {
      throw failure(name, what);
    }
    return rc;
  }

  /** The failure of the call just made on this thread: JNA keeps each call's errno. */
  private static IOException failure(String name, String what) throws IOException {
    int errno = Native.getLastError();
    String text = function("strerror").invokeString(new Object[] {errno}, false);
    return new Failure(name + " " + what + ": " + text, errno);
  }

  private static Function function(String name) throws IOException {
    Function f = Functions.BY_NAME.get(name);
    if (f == null) {
      throw new IOException("the C library's " + name + " is not reachable: " + Functions.error);
    }
    return f;
  }

  private static byte[] cString(String s) {
    return (s + "\0").getBytes(StandardCharsets.UTF_8);
  }

  /** The functions' addresses, looked up on first use; empty when the C library is not there. */
  private static final class Functions {
    /**
     * The system's library directories, for JNA. Unless this is set, JNA's {@code NativeLibrary}
     * learns them from {@code ldconfig -p} when its class is loaded: a process, and with it the
     * JDK's process reaper, a thread that lives a minute after the process ends. The C library
     * needs no search path (JNA takes it from the process, where the JVM loaded it).
     */
    static final String PLATFORM_PATH = "jna.platform.library.path";

    static volatile String error = "";
    static final Map<String, Function> BY_NAME = resolve();

    private static Map<String, Function> resolve() {
      Map<String, Function> byName = new HashMap<>();
      if (System.getProperty(PLATFORM_PATH) == null) {
        System.setProperty(PLATFORM_PATH, "");
      }
      try {
        NativeLibrary c = NativeLibrary.getInstance("c");
        try {
          for (String name : NAMES) {
            try {
              Pointer at = new Pointer(Pointer.nativeValue(c.getFunction(name)));
              byName.put(name, Function.getFunction(at));
            } catch (UnsatisfiedLinkError e) {
              error = e.toString();
            }
          }
        } finally {
          // The C library stays loaded (the JVM links it); only JNA's handle goes, and with it
          // the one object that would keep JNA's cleaner thread alive.
          c.close();
        }
      } catch (UnsatisfiedLinkError | RuntimeException e) {
        error = e.toString();
        return Map.of();
      }
      return Map.copyOf(byName);
    }
  }
}
