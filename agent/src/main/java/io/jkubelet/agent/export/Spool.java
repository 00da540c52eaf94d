package io.jkubelet.agent.export;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
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
 * <p>Parts: {@link SpoolRecovery} finds where to resume at {@link #open}; {@link SpoolLedger} keeps
 * the positions and counts; {@link SegmentWriter} appends and fsyncs; {@link SegmentFiles} reads
 * and rewrites the files; {@link SpoolDrops} counts and logs what is dropped.
 *
 * <p>Thread-safe: {@code lock} guards the ledger, the writer, the drops and {@code closed}. One
 * appender (the sink), one reader (the exporter's dispatcher) and any acknowledger (its senders)
 * run at once; the reader reads segment bytes outside the lock, which is safe because a segment is
 * deleted only once it is acknowledged to its end, and compaction never rewrites a segment at or
 * before the read-ahead position.
 */
final class Spool implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(Spool.class);

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

  private final SegmentFiles files;
  private final long maxBytes;
  private final long segmentBytes;
  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition appended = lock.newCondition();
  private final SpoolLedger ledger;
  private final SegmentWriter writer;
  private final SpoolDrops drops;
  private boolean closed;

  private Spool(
      SegmentFiles files, SpoolLedger ledger, long maxBytes, long segmentBytes, Clock clock) {
    this.files = files;
    this.maxBytes = maxBytes;
    this.segmentBytes = segmentBytes;
    this.clock = clock;
    this.ledger = ledger;
    this.writer = new SegmentWriter(files);
    this.drops = new SpoolDrops(maxBytes);
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
    Objects.requireNonNull(clock);
    SegmentFiles files = new SegmentFiles(dir);
    SpoolRecovery.Recovered r = SpoolRecovery.recover(files);
    Spool s = new Spool(files, r.ledger(), maxBytes, segmentBytes, clock);
    s.openHead(r.headSeq());
    return s;
  }

  /** The default segment size for a bound: a sixteenth of it, between 1 MiB and 64 MiB. */
  static long segmentBytesFor(long maxBytes) {
    return Math.max(1L << 20, Math.min(64L << 20, maxBytes / 16));
  }

  /** Opens segment {@code seq} as the head. Caller holds the lock (or owns the spool alone). */
  private SpoolLedger.Segment openHead(long seq) throws IOException {
    long size = writer.open(seq);
    SpoolLedger.Segment seg = ledger.segment(seq);
    seg.size = size;
    return seg;
  }

  /** Starts the next segment; the old one is fsynced and closed by the next {@link #sync()}. */
  private SpoolLedger.Segment roll() throws IOException {
    writer.retireHead();
    return openHead(writer.seq() + 1);
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
        drops.drop(d, "spool closed");
        return false;
      }
      if (!ledger.fits(line.length, maxBytes) && !makeRoom(d, line.length)) {
        drops.drop(d, "spool full");
        return false;
      }
      SpoolLedger.Segment seg = ledger.segment(writer.seq());
      if (seg.size > 0 && seg.size + line.length > segmentBytes) {
        seg = roll();
      }
      writer.write(line);
      ledger.appended(seg, line.length, d.warning(), clock);
      appended.signalAll();
      return true;
    } catch (IOException e) {
      log.error("event export: cannot write to spool {}: {}", files.dir(), e.toString());
      drops.drop(d, "spool write error");
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
    for (SpoolLedger.Segment seg : ledger.compactable()) {
      if (ledger.fits(needed, maxBytes)) {
        break;
      }
      compact(seg);
    }
    return ledger.fits(needed, maxBytes);
  }

  /** Rewrites a segment with its Warning lines only, counting the Normal ones dropped. */
  private void compact(SpoolLedger.Segment seg) throws IOException {
    boolean isHead = seg.seq == writer.seq();
    if (isHead) {
      writer.closeHead();
    }
    SegmentFiles.Kept kept = files.keepWarnings(seg.seq, drops::compactedNormal);
    long dropped = ledger.compacted(seg, kept.bytes(), kept.records());
    log.warn(
        "event export: spool over its bound of {} bytes; dropped {} Normal events of segment {}"
            + " to keep Warnings",
        maxBytes,
        dropped,
        seg.seq);
    if (isHead) {
      openHead(seg.seq);
    }
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
        Instant batchDue = ledger.batchDue(batchSize, maxWait);
        if (batchDue != null && !now.isBefore(batchDue)) {
          return true;
        }
        Instant due = batchDue != null && batchDue.isBefore(giveUp) ? batchDue : giveUp;
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
    SpoolLedger.Range r;
    lock.lock();
    try {
      r = ledger.nextRead(writer.seq());
    } finally {
      lock.unlock();
    }
    if (r.isEmpty()) {
      return new Batch(List.of(), r.segment(), r.start(), r.start(), 0);
    }
    Batch b = files.read(r.segment(), r.start(), r.end(), maxRecords, maxBytes);
    lock.lock();
    try {
      ledger.read(b);
    } finally {
      lock.unlock();
    }
    return b;
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
      ledger.ack(b, writer.seq(), files::delete);
      SegmentFiles.Position cursor = ledger.cursor();
      files.writeCursor(cursor.segment(), cursor.offset());
    } finally {
      lock.unlock();
    }
  }

  /**
   * fsyncs the segment being written, if anything was appended since the last sync, and the
   * segments rolled since; outside the lock, so appends never wait for the disk.
   */
  void sync() {
    SegmentWriter.Unsynced unsynced;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      unsynced = writer.unsynced();
    } finally {
      lock.unlock();
    }
    unsynced.force();
  }

  SpoolStats stats() {
    lock.lock();
    try {
      return new SpoolStats(
          maxBytes,
          ledger.pendingBytes(),
          ledger.pendingRecords(),
          ledger.segmentCount(),
          drops.snapshot());
    } finally {
      lock.unlock();
    }
  }

  Path dir() {
    return files.dir();
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
      writer.close();
    } catch (IOException e) {
      log.warn("event export: closing spool {}: {}", files.dir(), e.toString());
    } finally {
      lock.unlock();
    }
  }
}
