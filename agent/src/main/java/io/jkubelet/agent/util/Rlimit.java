package io.jkubelet.agent.util;

import com.sun.jna.Function;
import com.sun.jna.LastErrorException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's limit of open files ({@code RLIMIT_NOFILE}), set as upstream's {@code
 * rlimit.SetNumFiles} sets it for {@code --max-open-files}: soft and hard limit both, through the C
 * library's {@code setrlimit(2)}. A failure is logged, as upstream's, and the agent goes on.
 *
 * <p>The {@code struct rlimit} is a Java array of two longs, which JNA copies in and out: its own
 * native memory would start its cleaner thread.
 */
public final class Rlimit {
  private static final Logger log = LoggerFactory.getLogger(Rlimit.class);

  /** {@code RLIMIT_NOFILE} on Linux. */
  private static final int RLIMIT_NOFILE = 7;

  private Rlimit() {}

  /**
   * Sets the soft and hard limit of open files to {@code n}; logs an error when the kernel refuses
   * (raising the hard limit needs {@code CAP_SYS_RESOURCE}).
   *
   * @return whether the limit is now {@code n}
   */
  public static boolean setOpenFiles(long n) {
    try {
      long[] limit = {n, n};
      Function.getFunction("c", "setrlimit", Function.THROW_LAST_ERROR)
          .invokeInt(new Object[] {RLIMIT_NOFILE, limit});
      return true;
    } catch (LastErrorException e) {
      log.error("Failed to set rlimit on max file handles: {}", e.getMessage());
      return false;
    } catch (UnsatisfiedLinkError | RuntimeException e) {
      log.error("Failed to set rlimit on max file handles: {}", e.toString());
      return false;
    }
  }

  /** The soft and hard limit of open files, or null when they cannot be read. */
  public static long[] openFiles() {
    try {
      long[] limit = new long[2];
      int rc =
          Function.getFunction("c", "getrlimit").invokeInt(new Object[] {RLIMIT_NOFILE, limit});
      return rc != 0 ? null : limit;
    } catch (UnsatisfiedLinkError | RuntimeException e) {
      return null;
    }
  }
}
