package io.jkubelet.agent.logs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;

/**
 * Appends a container's output to its CRI log file, rotated as upstream's container log manager
 * ({@code pkg/kubelet/logs/container_log_manager.go}) does once the file reaches {@code maxSize}:
 * leftovers of a failed rotation ({@code .tmp}, a plain file whose {@code .gz} exists) are removed,
 * then the oldest rotated files so that {@code maxFiles - 2} remain, the remaining plain ones are
 * gzipped ({@code <file>.<yyyyMMdd-HHmmss>.gz}), and the live file is renamed to {@code
 * <file>.<yyyyMMdd-HHmmss>} (left plain, so a shipper can finish reading it) and started anew: at
 * most {@code maxFiles} files, the live one included. Upstream checks every 10 s; here the check
 * follows each write, so a file never grows much past {@code maxSize}, and two rotations in one
 * second take the next free second's name, so names keep sorting oldest first. A non-positive
 * {@code maxSize} never rotates.
 *
 * <p>Not thread-safe: one writer per container instance, used by one thread at a time.
 */
public final class RotatingLogWriter implements AutoCloseable {
  static final DateTimeFormatter SUFFIX =
      DateTimeFormatter.ofPattern("uuuuMMdd-HHmmss").withZone(ZoneOffset.UTC);
  private static final String GZ = ".gz";
  private static final String TMP = ".tmp";

  private final Path file;
  private final long maxSize;
  private final int maxFiles;
  private final Clock clock;
  private OutputStream out;
  private long size;

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
   * {@code containerLogMaxSize} in bytes, as upstream's {@code parseMaxSize}: a quantity ({@code
   * 10Mi}, {@code 500Ki}, {@code 1G}); a negative one disables rotation.
   *
   * @throws IllegalArgumentException when it is not a quantity
   */
  public static long parseMaxSize(String size) {
    try {
      return io.fabric8.kubernetes.api.model.Quantity.getAmountInBytes(
              new io.fabric8.kubernetes.api.model.Quantity(size))
          .longValueExact();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "invalid containerLogMaxSize \"" + size + "\": " + e.getMessage(), e);
    }
  }

  /** The live file. */
  public Path file() {
    return file;
  }

  /**
   * Writes one CRI line ({@code content} without its newline), then rotates if the file is full.
   */
  public void write(Instant time, String stream, boolean partial, byte[] content)
      throws IOException {
    if (out == null) {
      Files.createDirectories(file.getParent());
      out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      size = Files.size(file);
    }
    byte[] line = CriFormat.format(time, stream, partial, content);
    out.write(line);
    out.flush();
    size += line.length;
    if (maxSize > 0 && size >= maxSize) {
      rotate();
    }
  }

  private void rotate() throws IOException {
    out.close();
    out = null;
    List<Path> logs = removeExcess(cleanupUnused(rotated()));
    for (Path l : logs) {
      if (!l.toString().endsWith(GZ)) {
        compress(l);
      }
    }
    Files.move(file, nextRotatedName(), StandardCopyOption.ATOMIC_MOVE);
    Files.createFile(file); // readers (and links) always find the live file
  }

  /** {@code <file>.<now>}, or the second after the newest rotated file if that is not later. */
  private Path nextRotatedName() throws IOException {
    Instant t = clock.instant();
    String prefix = file.getFileName() + ".";
    for (Path p : rotated()) {
      String stamp = p.getFileName().toString().substring(prefix.length()).replace(GZ, "");
      try {
        Instant used = SUFFIX.parse(stamp, Instant::from);
        if (!used.isBefore(t.minusNanos(t.getNano()))) {
          t = used.plusSeconds(1);
        }
      } catch (java.time.format.DateTimeParseException e) {
        // not ours; sorted among the others by name
      }
    }
    return file.resolveSibling(prefix + SUFFIX.format(t));
  }

  private static List<Path> cleanupUnused(List<Path> logs) throws IOException {
    List<Path> inUse = new ArrayList<>();
    for (Path l : logs) {
      String name = l.toString();
      boolean unused =
          name.endsWith(TMP) || (!name.endsWith(GZ) && logs.contains(Path.of(name + GZ)));
      if (unused) {
        Files.deleteIfExists(l);
      } else {
        inUse.add(l);
      }
    }
    return inUse;
  }

  private List<Path> removeExcess(List<Path> logs) throws IOException {
    int keep = Math.max(0, maxFiles - 2);
    int remove = Math.max(0, logs.size() - keep);
    for (int i = 0; i < remove; i++) {
      Files.deleteIfExists(logs.get(i));
    }
    return logs.subList(remove, logs.size());
  }

  private static void compress(Path log) throws IOException {
    Path tmp = Path.of(log + TMP);
    try (InputStream in = Files.newInputStream(log);
        OutputStream gz = new GZIPOutputStream(Files.newOutputStream(tmp))) {
      in.transferTo(gz);
    } catch (IOException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    Files.move(tmp, Path.of(log + GZ), StandardCopyOption.ATOMIC_MOVE);
    Files.delete(log);
  }

  /** The rotated files of this log ({@code <file>.*}), oldest first. */
  List<Path> rotated() throws IOException {
    return rotated(file);
  }

  /** The rotated files of a log ({@code <file>.*}), oldest first; none if its directory is gone. */
  static List<Path> rotated(Path file) throws IOException {
    String prefix = file.getFileName() + ".";
    if (!Files.isDirectory(file.getParent())) {
      return List.of();
    }
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
}
