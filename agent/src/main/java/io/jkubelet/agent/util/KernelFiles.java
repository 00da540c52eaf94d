package io.jkubelet.agent.util;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the kernel's small text files, of {@code /proc} and the cgroup file systems, defined once
 * for the stats, the OOM watch and the container manager.
 *
 * <p>NOTE: every file is read by lines: the JDK's {@code Files.readString} sizes its read by the
 * file's reported size, which is 0 for many of these files, and reads some of them short ({@code
 * /proc/sys/kernel/pid_max} gave one character).
 */
public final class KernelFiles {
  /** No limit in a v1 limit file: the kernel writes a page-rounded {@code LONG_MAX}. */
  private static final long UNLIMITED = Long.MAX_VALUE / 2;

  private KernelFiles() {}

  /** A file's first line, trimmed. */
  public static String line(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    if (lines.isEmpty()) {
      throw new IOException(file + " is empty");
    }
    return lines.get(0).trim();
  }

  /** A file that holds one number, as {@code memory.usage_in_bytes}. */
  public static long number(Path file) throws IOException {
    try {
      return Long.parseLong(line(file));
    } catch (NumberFormatException e) {
      throw new IOException(file + " holds no number: " + e.getMessage());
    }
  }

  /** As {@link #number}; -1 when the file does not exist (a counter of a later kernel). */
  public static long optionalNumber(Path file) throws IOException {
    return Files.exists(file) ? number(file) : -1;
  }

  /**
   * A cgroup's limit file, as v2's {@code memory.max} or v1's {@code memory.limit_in_bytes}; empty
   * when it sets no limit: v2's {@code max}, or v1's page-rounded {@code LONG_MAX}.
   */
  public static Optional<Long> limit(Path file) throws IOException {
    String v = line(file);
    if (v.equals("max")) {
      return Optional.empty();
    }
    try {
      long limit = Long.parseLong(v);
      return limit >= UNLIMITED ? Optional.empty() : Optional.of(limit);
    } catch (NumberFormatException e) {
      throw new IOException(file + " holds no limit: " + e.getMessage());
    }
  }

  /**
   * A flat-keyed file, one {@code key value} per line, as {@code memory.stat}, {@code cpu.stat} and
   * {@code memory.events}; lines whose value is not a number are skipped.
   */
  public static Map<String, Long> keyValues(Path file) throws IOException {
    Map<String, Long> out = new HashMap<>();
    for (String line : Files.readAllLines(file)) {
      int space = line.indexOf(' ');
      if (space > 0) {
        try {
          out.put(line.substring(0, space), Long.parseLong(line.substring(space + 1).trim()));
        } catch (NumberFormatException e) {
          // not a counter
        }
      }
    }
    return out;
  }
}
