package io.jkubelet.agent.util;

import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's limit of open files ({@code RLIMIT_NOFILE}), set as upstream's {@code
 * rlimit.SetNumFiles} sets it for {@code --max-open-files}: soft and hard limit both, through the C
 * library's {@code setrlimit(2)} ({@link LibC}). A failure is logged, as upstream's, and the agent
 * goes on.
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
      LibC.setrlimit(RLIMIT_NOFILE, n, n);
      return true;
    } catch (IOException e) {
      log.error("Failed to set rlimit on max file handles: {}", e.getMessage());
      return false;
    }
  }

  /** The soft and hard limit of open files, or null when they cannot be read. */
  public static long[] openFiles() {
    try {
      return LibC.getrlimit(RLIMIT_NOFILE);
    } catch (IOException e) {
      return null;
    }
  }
}
