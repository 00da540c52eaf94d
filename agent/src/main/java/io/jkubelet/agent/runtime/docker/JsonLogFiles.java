package io.jkubelet.agent.runtime.docker;

import io.jkubelet.config.Records;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * A snapshot of one container's json-file log: the live file and the engine's rotated ones ({@code
 * <id>-json.log.1}, {@code .2}, … up to {@code max-file}; {@code .N.gz} when {@code compress} is
 * on), open, oldest first, each up to its size when opened. Finds where the last N lines begin,
 * reading the plain files backwards from their ends as upstream's {@code FindTailLineStartIndex}
 * does (a compressed file is counted through once).
 *
 * <p>NOTE: the engine rotates by renaming ({@code .1} to {@code .2}, the live file to {@code .1})
 * under its own lock, which a reader outside the engine cannot take. The files are therefore opened
 * newest first, each path's file identity read before and after opening (a path renamed meanwhile
 * is opened again), and a file met twice is kept once: a rotation during {@link #open} neither
 * loses nor repeats a line, only the oldest file may drop out as it would have anyway.
 *
 * <p>Not thread-safe: one reader at a time.
 */
final class JsonLogFiles implements AutoCloseable {
  private static final int BLOCK = 64 * 1024;

  /** One file: open, how much of it to read, and whether it is gzipped. */
  record Part(Path path, FileChannel channel, long size, boolean gzip) {
    Part {
      Records.requireNonNull(Part.class, path, channel);
    }

    /** Its (uncompressed) bytes from {@code offset} on. */
    InputStream open(long offset) throws IOException {
      if (!gzip) {
        return new PlainInput(channel, offset, size);
      }
      InputStream in =
          new GZIPInputStream(Channels.newInputStream(new Bounded(channel, size)), BLOCK);
      in.skipNBytes(offset);
      return in;
    }
  }

  private final List<Part> parts;

  private JsonLogFiles(List<Part> parts) {
    this.parts = parts;
  }

  /** The parts, oldest first. */
  List<Part> parts() {
    return parts;
  }

  /**
   * Opens the live file {@code path} and its rotated files {@code path.1} … {@code
   * path.<maxFiles-1>} ({@code .gz} where only the compressed one exists).
   *
   * @throws IOException when the live file cannot be opened
   */
  static JsonLogFiles open(Path path, int maxFiles) throws IOException {
    List<Part> newestFirst = new ArrayList<>();
    Set<Object> seen = new HashSet<>();
    try {
      newestFirst.add(
          openPart(path, false, seen).orElseThrow(() -> new NoSuchFileException(path.toString())));
      for (int i = 1; i < maxFiles; i++) {
        Path rotated = Path.of(path + "." + i);
        var part = openPart(rotated, false, seen);
        if (part.isEmpty()) {
          part = openPart(Path.of(rotated + ".gz"), true, seen);
        }
        part.ifPresent(newestFirst::add);
      }
    } catch (IOException | RuntimeException e) {
      closeAll(newestFirst);
      throw e;
    }
    return new JsonLogFiles(List.copyOf(newestFirst.reversed()));
  }

  /** Empty when the file does not exist or is one already opened. */
  private static java.util.Optional<Part> openPart(Path path, boolean gzip, Set<Object> seen)
      throws IOException {
    for (int attempt = 0; attempt < 3; attempt++) {
      Object before = fileKey(path);
      if (before == null) {
        return java.util.Optional.empty();
      }
      FileChannel ch;
      try {
        ch = FileChannel.open(path, StandardOpenOption.READ);
      } catch (NoSuchFileException e) {
        return java.util.Optional.empty();
      }
      if (before.equals(fileKey(path))) {
        if (!seen.add(before)) {
          ch.close();
          return java.util.Optional.empty();
        }
        return java.util.Optional.of(new Part(path, ch, ch.size(), gzip));
      }
      ch.close(); // renamed between the two looks: try again
    }
    throw new IOException("log file " + path + " keeps being rotated");
  }

  private static Object fileKey(Path path) throws IOException {
    try {
      BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
      return a.fileKey() != null ? a.fileKey() : path;
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** Where reading starts: a part's index and the offset in its (uncompressed) bytes. */
  record Position(int part, long offset) {}

  /** How many bytes there are from {@code start} on; a compressed part counts as {@code gzip}. */
  long bytesFrom(Position start, long gzip) {
    long n = 0;
    for (int i = start.part(); i < parts.size(); i++) {
      Part p = parts.get(i);
      n += p.gzip() ? gzip : p.size() - (i == start.part() ? start.offset() : 0);
    }
    return n;
  }

  /**
   * Where the last {@code lines} lines begin, counting newlines from the end of the newest part
   * backwards across parts (an unterminated last line is not counted, but is read); negative: the
   * start of the oldest part.
   */
  Position tail(long lines) throws IOException {
    if (lines < 0 || parts.isEmpty()) {
      return new Position(0, 0);
    }
    long need = lines;
    for (int i = parts.size() - 1; i >= 0; i--) {
      Part p = parts.get(i);
      long[] found = p.gzip() ? tailGzip(p, need) : tailPlain(p, need);
      if (found[0] >= 0) {
        return new Position(i, found[0]);
      }
      need -= found[1];
    }
    return new Position(0, 0);
  }

  /**
   * Scans backwards: {@code [offset, -]} of the first byte of the last {@code need} lines when the
   * part holds more than {@code need} newlines, else {@code [-1, newlines]}.
   */
  private static long[] tailPlain(Part p, long need) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(BLOCK);
    long count = 0;
    long right = p.size();
    while (right > 0) {
      long left = Math.max(0, right - BLOCK);
      buf.clear().limit((int) (right - left));
      readFully(p.channel(), buf, left);
      byte[] a = buf.array();
      for (int k = (int) (right - left) - 1; k >= 0; k--) {
        if (a[k] == '\n' && ++count > need) {
          return new long[] {left + k + 1, count};
        }
      }
      right = left;
    }
    return new long[] {-1, count};
  }

  /** As {@link #tailPlain}, for a compressed part: counts all its newlines, then the offset. */
  private static long[] tailGzip(Part p, long need) throws IOException {
    long total = 0;
    long size = 0;
    byte[] a = new byte[BLOCK];
    try (InputStream in = p.open(0)) {
      for (int n; (n = in.read(a)) >= 0; size += n) {
        for (int k = 0; k < n; k++) {
          if (a[k] == '\n') {
            total++;
          }
        }
      }
    }
    if (total <= need) {
      return new long[] {-1, total};
    }
    long skip = total - need; // newlines before the start
    long offset = 0;
    try (InputStream in = p.open(0)) {
      for (int n; (n = in.read(a)) >= 0; offset += n) {
        for (int k = 0; k < n; k++) {
          if (a[k] == '\n' && --skip == 0) {
            return new long[] {offset + k + 1, total};
          }
        }
      }
    }
    return new long[] {size, total}; // shrank meanwhile: cannot happen to an open file
  }

  private static void readFully(FileChannel ch, ByteBuffer buf, long at) throws IOException {
    long pos = at;
    while (buf.hasRemaining()) {
      int n = ch.read(buf, pos);
      if (n < 0) {
        throw new IOException("log file shrank while read");
      }
      pos += n;
    }
  }

  @Override
  public void close() {
    closeAll(parts);
  }

  private static void closeAll(List<Part> parts) {
    for (Part p : parts) {
      try {
        p.channel().close();
      } catch (IOException e) {
        // a read-only file: nothing was lost
      }
    }
  }

  /** A plain part from an offset to its size, read positionally. */
  private static final class PlainInput extends InputStream {
    private final FileChannel ch;
    private long pos;
    private final long end;

    PlainInput(FileChannel ch, long pos, long end) {
      this.ch = ch;
      this.pos = pos;
      this.end = end;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (pos >= end) {
        return -1;
      }
      int n = ch.read(ByteBuffer.wrap(b, off, (int) Math.min(len, end - pos)), pos);
      if (n > 0) {
        pos += n;
      }
      return n == 0 ? -1 : n;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }
  }

  /** A compressed part up to its size at opening. */
  private static final class Bounded implements java.nio.channels.ReadableByteChannel {
    private final FileChannel ch;
    private long pos;
    private final long end;

    Bounded(FileChannel ch, long end) {
      this.ch = ch;
      this.end = end;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      if (pos >= end) {
        return -1;
      }
      ByteBuffer slice = dst.slice();
      slice.limit((int) Math.min(slice.remaining(), end - pos));
      int n = ch.read(slice, pos);
      if (n > 0) {
        pos += n;
        dst.position(dst.position() + n);
      }
      return n;
    }

    @Override
    public boolean isOpen() {
      return ch.isOpen();
    }

    @Override
    public void close() {
      // the part owns the channel
    }
  }
}
