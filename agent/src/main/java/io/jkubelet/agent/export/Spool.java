package io.jkubelet.agent.export;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bounded on-disk queue of documents not yet acknowledged by the server: append-only segment
 * files ({@code %020d.seg}, lines of {@link SpoolRecord}) and a {@code cursor} file naming the
 * first unacknowledged byte. Every document goes through it, so the order of sending is the order
 * of recording, and a restart resumes at the cursor.
 *
 * <p><b>Durability.</b> An append is one {@code write(2)} of a whole line before {@link #append}
 * returns: once it has returned, a kill of the process loses nothing. {@link #sync()} {@code
 * fsync}s the segment being written and those rolled since, outside the lock (appends never wait
 * for the disk); the exporter calls it once per flush interval, so an OS crash or power loss loses
 * at most that interval. A torn last line (a crash inside a write) is cut off at the next open. The
 * cursor is replaced atomically (rename) after each acknowledged batch, without fsync: after a
 * power loss a few batches may be sent again, which the documents' ids and versions make harmless.
 *
 * <p><b>Bound.</b> The bytes not yet acknowledged never exceed {@code maxBytes} (the disk may hold
 * up to one more segment of acknowledged lines). Over the bound, a Normal event is dropped; a
 * Warning first makes room by dropping the Normal events of the oldest segments (rewritten with
 * their Warnings only, never a segment being sent), and is dropped only when the spool holds
 * nothing else it may drop. Drops are counted by type and reason; each dropped Warning is logged.
 *
 * <p><b>Read-ahead.</b> {@link #read} moves a read-ahead position, so that several batches can be
 * in flight; {@link #ack} moves the cursor, only in the order the batches were read. A restart
 * resumes at the cursor: batches read and never acknowledged are sent again.
 *
 * <p>Thread-safe: {@code lock} guards every field below it. One appender (the sink), one reader
 * (the exporter's dispatcher) and any acknowledger (its senders) run at once; the reader reads
 * segment bytes outside the lock, which is safe because a segment is deleted only once it is
 * acknowledged to its end, and compaction never rewrites a segment at or before the read-ahead
 * position.
 */
final class Spool implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(Spool.class);
  private static final String CURSOR = "cursor";
  private static final String SUFFIX = ".seg";
  private static final int READ_CHUNK = 256 << 10;

  /**
   * A batch read from one segment, {@code [startPosition, endPosition)}: acknowledge it with {@link
   * #ack}. {@code records} counts its lines, corrupt ones (skipped, so not in {@code documents})
   * included.
   */
  record Batch(
      List<ExportDocument> documents,
      long segment,
      long startPosition,
      long endPosition,
      long records) {
    long bytes() {
      return endPosition - startPosition;
    }
  }

  private final Path dir;
  private final long maxBytes;
  private final long segmentBytes;
  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition appended = lock.newCondition();

  /** Segment sequence number to its state, oldest first. */
  private final TreeMap<Long, Segment> segments = new TreeMap<>();

  /** The cursor: the first byte not acknowledged. */
  private long readSeq;

  private long readPos;

  /** The read-ahead position: the first byte not yet read into a batch; never behind the cursor. */
  private long sendSeq;

  private long sendPos;
  private long pendingBytes;
  private long pendingRecords;

  /** Records after the read-ahead position, and when the oldest of them was appended. */
  private long unsentRecords;

  private Instant oldestUnsentAt;
  private FileChannel head;
  private final List<FileChannel> rolled = new ArrayList<>();
  private long headSeq;
  private boolean dirty;
  private boolean closed;

  /** "Normal"/"Warning" to (reason to count). */
  private final Map<String, Map<String, Long>> dropped = new TreeMap<>();

  private static final class Segment {
    final long seq;
    long size;
    long records;
    boolean warningsOnly;

    Segment(long seq) {
      this.seq = seq;
    }
  }

  private Spool(Path dir, long maxBytes, long segmentBytes, Clock clock) {
    this.dir = dir;
    this.maxBytes = maxBytes;
    this.segmentBytes = segmentBytes;
    this.clock = clock;
  }

  /**
   * Opens (creating) the spool in {@code dir}: drops acknowledged segments, cuts torn tails, counts
   * what is pending, and starts a new segment for appends.
   *
   * @param maxBytes the bound of unacknowledged bytes
   * @param segmentBytes the size at which a segment is rolled
   */
  static Spool open(Path dir, long maxBytes, long segmentBytes, Clock clock) throws IOException {
    if (maxBytes < 1 || segmentBytes < 1) {
      throw new IllegalArgumentException("spool sizes must be positive");
    }
    Spool s = new Spool(dir, maxBytes, segmentBytes, Objects.requireNonNull(clock));
    s.recover();
    return s;
  }

  /** The default segment size for a bound: a sixteenth of it, between 1 MiB and 64 MiB. */
  static long segmentBytesFor(long maxBytes) {
    return Math.max(1L << 20, Math.min(64L << 20, maxBytes / 16));
  }

  private void recover() throws IOException {
    Files.createDirectories(dir);
    long[] cursor = readCursor();
    readSeq = cursor[0];
    readPos = cursor[1];
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
    for (long seq : found) {
      if (seq < readSeq) {
        Files.deleteIfExists(segmentPath(seq));
        continue;
      }
      Segment seg = new Segment(seq);
      scan(seg, seq == readSeq ? readPos : 0);
      segments.put(seq, seg);
    }
    if (segments.isEmpty() || segments.firstKey() != readSeq) {
      // The cursor's segment is gone (fully acknowledged): resume at the oldest one left.
      readSeq = segments.isEmpty() ? readSeq : segments.firstKey();
      readPos = 0;
    } else if (readPos > segments.get(readSeq).size) {
      log.warn("event export: spool cursor {} is past its segment's end; resending it", readPos);
      readPos = 0;
    }
    headSeq = segments.isEmpty() ? Math.max(readSeq, 1) : segments.lastKey() + 1;
    if (segments.isEmpty()) {
      readSeq = headSeq;
      readPos = 0;
    }
    openHead(headSeq);
    sendSeq = readSeq;
    sendPos = readPos;
    unsentRecords = pendingRecords;
    if (unsentRecords > 0) {
      oldestUnsentAt = Instant.MIN;
    }
  }

  /** Counts a segment's lines (those after {@code from} as pending) and cuts a torn tail. */
  private void scan(Segment seg, long from) throws IOException {
    Path p = segmentPath(seg.seq);
    long pos = 0;
    long lastEnd = 0;
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
            seg.records++;
            if (lastEnd > from) {
              pendingRecords++;
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
    seg.size = lastEnd;
    seg.warningsOnly = warningsOnly;
    pendingBytes += Math.max(0, lastEnd - from);
  }

  private void openHead(long seq) throws IOException {
    head =
        FileChannel.open(
            segmentPath(seq),
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.APPEND);
    Segment seg = segments.computeIfAbsent(seq, Segment::new);
    seg.size = head.size();
    headSeq = seq;
  }

  /**
   * Appends a document, or drops it when the spool is full (see the class comment). Never throws:
   * an I/O error (a full disk) drops the document with an ERROR line.
   *
   * @return whether the document was spooled
   */
  boolean append(ExportDocument d) {
    byte[] line = SpoolRecord.encode(d);
    lock.lock();
    try {
      if (closed) {
        countDrop(d, "spool closed");
        return false;
      }
      if (pendingBytes + line.length > maxBytes && !makeRoom(d, line.length)) {
        countDrop(d, "spool full");
        return false;
      }
      Segment seg = segments.get(headSeq);
      if (seg.size > 0 && seg.size + line.length > segmentBytes) {
        roll();
        seg = segments.get(headSeq);
      }
      ByteBuffer buf = ByteBuffer.wrap(line);
      while (buf.hasRemaining()) {
        head.write(buf);
      }
      seg.size += line.length;
      seg.records++;
      seg.warningsOnly &= d.warning();
      pendingBytes += line.length;
      pendingRecords++;
      if (unsentRecords++ == 0) {
        oldestUnsentAt = clock.instant();
      }
      dirty = true;
      appended.signalAll();
      return true;
    } catch (IOException e) {
      log.error("event export: cannot write to spool {}: {}", dir, e.toString());
      countDrop(d, "spool write error");
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** Over the bound: a Warning drops older Normal events to make room. Caller holds the lock. */
  private boolean makeRoom(ExportDocument d, int needed) throws IOException {
    if (!d.warning()) {
      return false;
    }
    for (Segment seg : List.copyOf(segments.values())) {
      if (pendingBytes + needed <= maxBytes) {
        break;
      }
      if (seg.seq <= sendSeq || seg.warningsOnly || seg.size == 0) {
        continue;
      }
      compact(seg);
    }
    return pendingBytes + needed <= maxBytes;
  }

  /** Rewrites a segment with its Warning lines only, counting the Normal ones dropped. */
  private void compact(Segment seg) throws IOException {
    Path p = segmentPath(seg.seq);
    Path tmp = dir.resolve(seg.seq + ".compact");
    if (seg.seq == headSeq) {
      head.close();
    }
    long kept = 0;
    long keptRecords = 0;
    try (InputStream in = new BufferedInputStream(Files.newInputStream(p), 1 << 16);
        OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
      int len;
      while ((len = readLine(in)) != 0) {
        if (SpoolRecord.isWarning(lineBuf, 0)) {
          out.write(lineBuf, 0, len);
          kept += len;
          keptRecords++;
        } else {
          countDropped("Normal", reasonOf(lineBuf, len));
        }
      }
    }
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
    move(tmp, p);
    long freed = seg.size - kept;
    log.warn(
        "event export: spool over its bound of {} bytes; dropped {} Normal events of segment {}"
            + " to keep Warnings",
        maxBytes,
        seg.records - keptRecords,
        seg.seq);
    pendingBytes -= freed;
    pendingRecords -= seg.records - keptRecords;
    unsentRecords -= seg.records - keptRecords; // the segment is after the read-ahead position
    seg.size = kept;
    seg.records = keptRecords;
    seg.warningsOnly = true;
    if (seg.seq == headSeq) {
      openHead(headSeq);
    }
  }

  /** The line buffer of {@link #readLine}, grown as needed; only used under the lock. */
  private byte[] lineBuf = new byte[8192];

  /** Reads one line (with its newline) into {@link #lineBuf}; its length, 0 at the end. */
  private int readLine(InputStream in) throws IOException {
    int n = 0;
    int b;
    while ((b = in.read()) >= 0) {
      if (n == lineBuf.length) {
        lineBuf = java.util.Arrays.copyOf(lineBuf, n * 2);
      }
      lineBuf[n++] = (byte) b;
      if (b == '\n') {
        return n;
      }
    }
    return n;
  }

  private static String reasonOf(byte[] line, int len) {
    String s = new String(line, 0, Math.min(len, 1024), StandardCharsets.UTF_8);
    String[] parts = s.split("\t", 6);
    return parts.length >= 5 ? parts[4] : "";
  }

  /** Starts the next segment; the old one is fsynced and closed by the next {@link #sync()}. */
  private void roll() throws IOException {
    rolled.add(head);
    openHead(headSeq + 1);
  }

  private void countDrop(ExportDocument d, String why) {
    String type = d.warning() ? "Warning" : "Normal";
    long n = countDropped(type, d.reason());
    if (d.warning()) {
      log.warn(
          "event export: {}: dropped Warning event {} reason {} (max {} bytes)",
          why,
          d.id(),
          d.reason(),
          maxBytes);
    } else if (Long.bitCount(n) == 1) {
      log.warn(
          "event export: {}: dropped Normal event {} reason {} ({} Normal events of this reason"
              + " dropped so far; max {} bytes)",
          why,
          d.id(),
          d.reason(),
          n,
          maxBytes);
    }
  }

  private long countDropped(String type, String reason) {
    return dropped.computeIfAbsent(type, t -> new TreeMap<>()).merge(reason, 1L, Long::sum);
  }

  /**
   * Waits until a batch is due: {@code batchSize} records not yet read, or any not read for {@code
   * maxWait} since the oldest was appended, or {@code timeout} passed, or the spool closed.
   *
   * @return whether a batch is due
   */
  boolean awaitBatch(int batchSize, Duration maxWait, Duration timeout)
      throws InterruptedException {
    lock.lock();
    try {
      Instant giveUp = clock.instant().plus(timeout);
      while (!closed) {
        Instant now = clock.instant();
        if (unsentRecords >= batchSize) {
          return true;
        }
        Instant due = giveUp;
        if (unsentRecords > 0) {
          Instant batchDue =
              oldestUnsentAt == Instant.MIN ? Instant.MIN : oldestUnsentAt.plus(maxWait);
          if (!now.isBefore(batchDue)) {
            return true;
          }
          due = batchDue.isBefore(giveUp) ? batchDue : giveUp;
        }
        if (!now.isBefore(giveUp)) {
          return false;
        }
        appended.awaitNanos(Math.max(1, Duration.between(now, due).toNanos()));
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Reads the next batch after the read-ahead position and moves that position past it: up to
   * {@code maxRecords} documents and about {@code maxBytes} (at least one document), from one
   * segment. Empty when nothing is left to read. Several batches may be read before the first is
   * acknowledged; they are acknowledged in the order they were read. Lines that do not parse are
   * logged and skipped (they are acknowledged with the batch). One reader at a time.
   */
  Batch read(int maxRecords, int maxBytes) throws IOException {
    long seq;
    long pos;
    long end;
    lock.lock();
    try {
      if (sendSeq < readSeq) {
        // Read to its end, acknowledged and deleted meanwhile: on from the cursor.
        sendSeq = readSeq;
        sendPos = readPos;
      }
      while (true) {
        Segment seg = segments.get(sendSeq);
        if (seg == null) {
          return new Batch(List.of(), sendSeq, sendPos, sendPos, 0);
        }
        if (sendPos < seg.size) {
          seq = sendSeq;
          pos = sendPos;
          end = seg.size;
          break;
        }
        if (sendSeq == headSeq) {
          return new Batch(List.of(), sendSeq, sendPos, sendPos, 0);
        }
        // Read to its end and no longer written: on to the next (ack deletes it).
        sendSeq = segments.higherKey(sendSeq);
        sendPos = 0;
      }
    } finally {
      lock.unlock();
    }
    Batch b = readLines(seq, pos, end, maxRecords, maxBytes);
    lock.lock();
    try {
      sendPos = b.endPosition();
      unsentRecords = Math.max(0, unsentRecords - b.records());
      oldestUnsentAt = unsentRecords > 0 ? Instant.MIN : null;
    } finally {
      lock.unlock();
    }
    return b;
  }

  private Batch readLines(long seq, long pos, long end, int maxRecords, int maxBytes)
      throws IOException {
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
    return new Batch(docs, seq, pos, at, lines);
  }

  /**
   * Acknowledges the oldest batch read and not yet acknowledged: moves the cursor past it, deletes
   * the segments it leaves behind and writes the cursor file.
   *
   * @throws IllegalStateException when {@code b} does not start at the cursor
   */
  void ack(Batch b) throws IOException {
    lock.lock();
    try {
      skipFinishedSegments();
      if (b.segment() != readSeq || b.startPosition() != readPos) {
        throw new IllegalStateException(
            "event export: ack of a batch that is not next: "
                + b.segment()
                + "@"
                + b.startPosition()
                + ", cursor "
                + readSeq
                + "@"
                + readPos);
      }
      readPos = b.endPosition();
      pendingBytes -= b.bytes();
      pendingRecords = Math.max(0, pendingRecords - b.records());
      skipFinishedSegments();
      writeCursor();
    } finally {
      lock.unlock();
    }
  }

  /** Deletes the cursor's segment while it is acknowledged to its end and no longer written. */
  private void skipFinishedSegments() throws IOException {
    while (readSeq != headSeq && readPos >= segments.get(readSeq).size) {
      segments.remove(readSeq);
      Files.deleteIfExists(segmentPath(readSeq));
      readSeq = segments.firstKey();
      readPos = 0;
    }
  }

  /**
   * fsyncs the segment being written, if anything was appended since the last sync, and the
   * segments rolled since; outside the lock, so appends never wait for the disk.
   */
  void sync() {
    FileChannel current;
    List<FileChannel> done;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      current = dirty ? head : null;
      dirty = false;
      done = List.copyOf(rolled);
      rolled.clear();
    } finally {
      lock.unlock();
    }
    for (FileChannel ch : done) {
      try (ch) {
        ch.force(false);
      } catch (IOException e) {
        log.warn("event export: cannot fsync a spool segment in {}: {}", dir, e.toString());
      }
    }
    if (current != null) {
      try {
        current.force(false);
      } catch (java.nio.channels.ClosedChannelException e) {
        // Rolled or compacted meanwhile: the next sync forces it.
      } catch (IOException e) {
        log.warn("event export: cannot fsync spool {}: {}", dir, e.toString());
      }
    }
  }

  SpoolStats stats() {
    lock.lock();
    try {
      Map<String, Map<String, Long>> drops = new TreeMap<>();
      dropped.forEach((t, m) -> drops.put(t, Map.copyOf(m)));
      return new SpoolStats(maxBytes, pendingBytes, pendingRecords, segments.size(), drops);
    } finally {
      lock.unlock();
    }
  }

  Path dir() {
    return dir;
  }

  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      appended.signalAll();
      for (FileChannel ch : rolled) {
        try (ch) {
          ch.force(false);
        }
      }
      rolled.clear();
      head.force(false);
      head.close();
    } catch (IOException e) {
      log.warn("event export: closing spool {}: {}", dir, e.toString());
    } finally {
      lock.unlock();
    }
  }

  private Path segmentPath(long seq) {
    return dir.resolve(String.format("%020d%s", seq, SUFFIX));
  }

  private long[] readCursor() throws IOException {
    Path p = dir.resolve(CURSOR);
    if (!Files.exists(p)) {
      return new long[] {0, 0};
    }
    String s = Files.readString(p).trim();
    String[] parts = s.split(" ");
    try {
      return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
    } catch (RuntimeException e) {
      log.warn("event export: spool cursor {} is unreadable ({}); resending everything", p, s);
      return new long[] {0, 0};
    }
  }

  /** Caller holds the lock. */
  private void writeCursor() throws IOException {
    Path tmp = dir.resolve(CURSOR + ".tmp");
    Files.writeString(tmp, readSeq + " " + readPos + "\n");
    move(tmp, dir.resolve(CURSOR));
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
