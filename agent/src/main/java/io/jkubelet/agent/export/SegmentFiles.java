package io.jkubelet.agent.export;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of a {@link Spool}'s directory: segment files ({@code %020d.seg}, lines of {@link
 * SpoolRecord}) and the {@code cursor} file ({@code "<segment> <position>\n"}, the first byte not
 * acknowledged). It lists and deletes segments, scans one at start-up (cutting off a torn last
 * line), reads a batch of lines from one, rewrites one with its Warnings only, and replaces the
 * cursor atomically (rename, without fsync).
 *
 * <p>Thread-safe: it keeps no state but the directory; which file is read or written when is the
 * spool's to decide.
 */
final class SegmentFiles {
  /** The spool's logger: these lines were the spool's before its files were split from it. */
  private static final Logger log = LoggerFactory.getLogger(Spool.class);

  private static final String CURSOR = "cursor";
  private static final String SUFFIX = ".seg";
  private static final int READ_CHUNK = 256 << 10;

  /** A position in the spool: a segment's sequence number and a byte offset in it. */
  record Position(long segment, long offset) {}

  /**
   * What a scan found in a segment.
   *
   * @param size the bytes of its whole lines (a torn tail cut off)
   * @param records its lines
   * @param pendingRecords its lines that end after the scan's start
   * @param warningsOnly whether no line is a Normal event's
   */
  record Scan(long size, long records, long pendingRecords, boolean warningsOnly) {}

  /** What a compaction kept of a segment: its Warning lines. */
  record Kept(long bytes, long records) {}

  private final Path dir;

  SegmentFiles(Path dir) {
    this.dir = dir;
  }

  Path dir() {
    return dir;
  }

  /**
   * Creates the directory if needed and lists its segments, oldest first; other files are logged
   * and left alone.
   */
  List<Long> list() throws IOException {
    Files.createDirectories(dir);
    List<Long> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(SUFFIX))
          .forEach(
              n -> {
                try {
                  found.add(Long.parseLong(n.substring(0, n.length() - SUFFIX.length())));
                } catch (NumberFormatException e) {
                  log.warn("event export: ignoring foreign file {} in spool {}", n, dir);
                }
              });
    }
    found.sort(null);
    return found;
  }

  /** Opens segment {@code seq} for appends, creating it. */
  FileChannel openForAppend(long seq) throws IOException {
    return FileChannel.open(
        segmentPath(seq),
        StandardOpenOption.CREATE,
        StandardOpenOption.WRITE,
        StandardOpenOption.APPEND);
  }

  void delete(long seq) throws IOException {
    Files.deleteIfExists(segmentPath(seq));
  }

  /** Counts a segment's lines (those ending after {@code from} as pending) and cuts a torn tail. */
  Scan scan(long seq, long from) throws IOException {
    Path p = segmentPath(seq);
    long pos = 0;
    long lastEnd = 0;
    long records = 0;
    long pending = 0;
    boolean lineStart = true;
    boolean warningsOnly = true;
    byte[] chunk = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(p)) {
      int n;
      while ((n = in.read(chunk)) > 0) {
        for (int i = 0; i < n; i++) {
          byte b = chunk[i];
          if (lineStart && b == 'N') {
            warningsOnly = false;
          }
          lineStart = b == '\n';
          if (lineStart) {
            lastEnd = pos + i + 1;
            records++;
            if (lastEnd > from) {
              pending++;
            }
          }
        }
        pos += n;
      }
    }
    if (lastEnd < pos) {
      log.warn(
          "event export: spool segment {} ends with a torn record ({} bytes); cutting it off",
          p,
          pos - lastEnd);
      try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
        ch.truncate(lastEnd);
        ch.force(true);
      }
    }
    return new Scan(lastEnd, records, pending, warningsOnly);
  }

  /**
   * Reads the lines of segment {@code seq} from {@code pos} (before {@code end}): up to {@code
   * maxRecords} and about {@code maxBytes} (at least one line). Lines that do not parse are logged
   * and counted in the batch's records, not in its documents.
   */
  Spool.Batch read(long seq, long pos, long end, int maxRecords, int maxBytes) throws IOException {
    List<ExportDocument> docs = new ArrayList<>();
    long at = pos;
    long lines = 0;
    try (FileChannel ch = FileChannel.open(segmentPath(seq), StandardOpenOption.READ)) {
      // Read in chunks: a batch is far smaller than what a replay has pending.
      ByteBuffer buf =
          ByteBuffer.allocate((int) Math.min(end - pos, Math.min(maxBytes, READ_CHUNK)));
      while (lines < maxRecords && at < end && (at - pos < maxBytes || lines == 0)) {
        buf.clear();
        buf.limit((int) Math.min(buf.capacity(), end - at));
        int n = ch.read(buf, at);
        if (n <= 0) {
          break;
        }
        byte[] a = buf.array();
        int lineStart = 0;
        int consumed = 0;
        for (int i = 0; i < n && lines < maxRecords; i++) {
          if (a[i] != '\n') {
            continue;
          }
          lines++;
          try {
            docs.add(SpoolRecord.decode(a, lineStart, i));
          } catch (RuntimeException e) {
            log.error("event export: skipping a corrupt spool record in segment {}: {}", seq, e);
          }
          lineStart = i + 1;
          consumed = i + 1;
          if (at + consumed - pos >= maxBytes) {
            break;
          }
        }
        if (consumed == 0) {
          // One record longer than the buffer: grow it and read again.
          buf = ByteBuffer.allocate((int) Math.min(end - at, (long) buf.capacity() * 2));
          continue;
        }
        at += consumed;
      }
    }
    return new Spool.Batch(docs, seq, pos, at, lines);
  }

  /**
   * Rewrites segment {@code seq} with its Warning lines only (through a fsynced temporary file and
   * a rename), telling {@code droppedNormal} the reason of each Normal line left out.
   */
  Kept keepWarnings(long seq, Consumer<String> droppedNormal) throws IOException {
    Path p = segmentPath(seq);
    Path tmp = dir.resolve(seq + ".compact");
    long kept = 0;
    long keptRecords = 0;
    LineReader lines = new LineReader();
    try (InputStream in = new BufferedInputStream(Files.newInputStream(p), 1 << 16);
        OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
      int len;
      while ((len = lines.read(in)) != 0) {
        if (SpoolRecord.isWarning(lines.buf, 0)) {
          out.write(lines.buf, 0, len);
          kept += len;
          keptRecords++;
        } else {
          droppedNormal.accept(reasonOf(lines.buf, len));
        }
      }
    }
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
    move(tmp, p);
    return new Kept(kept, keptRecords);
  }

  /** Reads lines one at a time into a buffer it grows as needed. */
  private static final class LineReader {
    byte[] buf = new byte[8192];

    /** Reads one line (with its newline) into {@code buf}; its length, 0 at the end. */
    int read(InputStream in) throws IOException {
      int n = 0;
      int b;
      while ((b = in.read()) >= 0) {
        if (n == buf.length) {
          buf = Arrays.copyOf(buf, n * 2);
        }
        buf[n++] = (byte) b;
        if (b == '\n') {
          return n;
        }
      }
      return n;
    }
  }

  private static String reasonOf(byte[] line, int len) {
    String s = new String(line, 0, Math.min(len, 1024), StandardCharsets.UTF_8);
    String[] parts = s.split("\t", 6);
    return parts.length >= 5 ? parts[4] : "";
  }

  /** The cursor file's position; the start of everything when it is missing or unreadable. */
  Position readCursor() throws IOException {
    Path p = dir.resolve(CURSOR);
    if (!Files.exists(p)) {
      return new Position(0, 0);
    }
    String s = Files.readString(p).trim();
    String[] parts = s.split(" ");
    try {
      return new Position(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
    } catch (RuntimeException e) {
      log.warn("event export: spool cursor {} is unreadable ({}); resending everything", p, s);
      return new Position(0, 0);
    }
  }

  /** Replaces the cursor file (atomically where the file system can). */
  void writeCursor(long seq, long pos) throws IOException {
    Path tmp = dir.resolve(CURSOR + ".tmp");
    Files.writeString(tmp, seq + " " + pos + "\n");
    move(tmp, dir.resolve(CURSOR));
  }

  private Path segmentPath(long seq) {
    return dir.resolve(String.format("%020d%s", seq, SUFFIX));
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
