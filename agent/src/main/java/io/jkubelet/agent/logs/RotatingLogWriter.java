package io.jkubelet.agent.logs;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Appends a container's output to its CRI log file, rotated as upstream's container log manager
 * does: when the file reaches {@code maxSize} it is renamed to {@code <file>.<yyyyMMdd-HHmmss>} and
 * a new one started, and the oldest rotated files go so that at most {@code maxFiles} remain, the
 * live one included. (Upstream also gzips rotated files; these stay plain.) Not thread-safe: one
 * writer per container instance, on one thread.
 */
public final class RotatingLogWriter implements AutoCloseable {
  private static final DateTimeFormatter SUFFIX =
      DateTimeFormatter.ofPattern("uuuuMMdd-HHmmss").withZone(ZoneOffset.UTC);

  private final Path file;
  private final long maxSize;
  private final int maxFiles;
  private final Clock clock;
  private OutputStream out;
  private long size;
  private byte[] pending = new byte[0];

  public RotatingLogWriter(Path file, long maxSize, int maxFiles, Clock clock) {
    if (maxFiles < 2) {
      throw new IllegalArgumentException("maxFiles must be at least 2, got " + maxFiles);
    }
    this.file = file;
    this.maxSize = maxSize;
    this.maxFiles = maxFiles;
    this.clock = clock;
  }

  /**
   * Writes output of {@code stream} read at {@code time}: each complete line as an F line; a
   * trailing fragment waits for its end (flushed as a P line by {@link #flushPartial}).
   */
  public void write(Instant time, String stream, byte[] bytes) throws IOException {
    byte[] data = concat(pending, bytes);
    int start = 0;
    for (int i = 0; i < data.length; i++) {
      if (data[i] == '\n') {
        append(CriFormat.format(time, stream, false, slice(data, start, i)));
        start = i + 1;
      }
    }
    pending = slice(data, start, data.length);
  }

  /** Writes a waiting fragment as a P line (the output paused mid-line). */
  public void flushPartial(Instant time, String stream) throws IOException {
    if (pending.length > 0) {
      append(CriFormat.format(time, stream, true, pending));
      pending = new byte[0];
    }
  }

  private void append(byte[] line) throws IOException {
    if (out == null) {
      Files.createDirectories(file.getParent());
      out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      size = Files.size(file);
    }
    out.write(line);
    out.flush();
    size += line.length;
    if (size >= maxSize) {
      rotate();
    }
  }

  private void rotate() throws IOException {
    out.close();
    out = null;
    Path rotated = file.resolveSibling(file.getFileName() + "." + SUFFIX.format(clock.instant()));
    Files.move(file, rotated, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.createFile(file); // readers (and links) always find the live file
    List<Path> old = rotated();
    for (int i = 0; i < old.size() - (maxFiles - 1); i++) {
      Files.deleteIfExists(old.get(i));
    }
  }

  /** The rotated files of this log, oldest first. */
  List<Path> rotated() throws IOException {
    String prefix = file.getFileName() + ".";
    try (Stream<Path> s = Files.list(file.getParent())) {
      List<Path> out =
          new ArrayList<>(s.filter(p -> p.getFileName().toString().startsWith(prefix)).toList());
      out.sort(null);
      return out;
    }
  }

  @Override
  public void close() throws IOException {
    if (out != null) {
      out.close();
      out = null;
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static byte[] slice(byte[] a, int from, int to) {
    byte[] out = new byte[to - from];
    System.arraycopy(a, from, out, 0, out.length);
    return out;
  }
}
