package io.jkubelet.agent.export;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;

/**
 * The accounts of a {@link Spool}, in memory and without I/O: each segment's size and lines, the
 * cursor (the first byte not acknowledged), the read-ahead position (the first byte not yet read
 * into a batch; never behind the cursor), and the bytes and lines pending (after the cursor) and
 * unsent (after the read-ahead position). It answers the spool's questions (does a line fit the
 * bound, which segments may a compaction rewrite, when is a batch due, what does the next read
 * cover) and moves the positions as lines are appended, read, compacted and acknowledged.
 *
 * <p>Not thread-safe: the spool's lock guards it.
 */
final class SpoolLedger {
  /** What the spool knows of a segment file. */
  static final class Segment {
    final long seq;
    long size;
    long records;
    boolean warningsOnly;

    Segment(long seq) {
      this.seq = seq;
    }
  }

  /** A part of one segment, {@code [start, end)}; empty when nothing is left to read. */
  record Range(long segment, long start, long end) {
    boolean isEmpty() {
      return start == end;
    }
  }

  /** Deletes a segment's file once it is acknowledged to its end. */
  @FunctionalInterface
  interface Deleter {
    void delete(long seq) throws IOException;
  }

  /** Segment sequence number to its state, oldest first. */
  private final TreeMap<Long, Segment> segments;

  /** The cursor: the first byte not acknowledged. */
  private long readSeq;

  private long readPos;

  /** The read-ahead position: the first byte not yet read into a batch; never behind the cursor. */
  private long sendSeq;

  private long sendPos;
  private long pendingBytes;
  private long pendingRecords;

  /**
   * Records after the read-ahead position, and when the oldest of them was appended ({@link
   * Instant#MIN} when unknown, as after a restart: due at once).
   */
  private long unsentRecords;

  private Instant oldestUnsentAt;

  /**
   * The accounts as a start-up finds them: nothing read ahead of the cursor, everything pending
   * unsent.
   */
  SpoolLedger(
      TreeMap<Long, Segment> segments,
      SegmentFiles.Position cursor,
      long pendingBytes,
      long pendingRecords) {
    this.segments = segments;
    this.readSeq = cursor.segment();
    this.readPos = cursor.offset();
    this.pendingBytes = pendingBytes;
    this.pendingRecords = pendingRecords;
    this.sendSeq = readSeq;
    this.sendPos = readPos;
    this.unsentRecords = pendingRecords;
    this.oldestUnsentAt = unsentRecords > 0 ? Instant.MIN : null;
  }

  /** The segment {@code seq}, added (empty) if it is new. */
  Segment segment(long seq) {
    return segments.computeIfAbsent(seq, Segment::new);
  }

  /** Whether {@code bytes} more stay within {@code maxBytes} pending. */
  boolean fits(long bytes, long maxBytes) {
    return pendingBytes + bytes <= maxBytes;
  }

  /**
   * A line of {@code bytes} was appended to {@code seg}; the clock is read for the first unsent.
   */
  void appended(Segment seg, int bytes, boolean warning, Clock clock) {
    seg.size += bytes;
    seg.records++;
    seg.warningsOnly &= warning;
    pendingBytes += bytes;
    pendingRecords++;
    if (unsentRecords++ == 0) {
      oldestUnsentAt = clock.instant();
    }
  }

  /**
   * The segments a compaction may rewrite, oldest first: after the read-ahead position (never one
   * being sent), not empty, and holding Normal events.
   */
  List<Segment> compactable() {
    return segments.values().stream()
        .filter(seg -> seg.seq > sendSeq && !seg.warningsOnly && seg.size > 0)
        .toList();
  }

  /**
   * A compaction kept {@code keptBytes} and {@code keptRecords} of {@code seg}, after the
   * read-ahead position.
   *
   * @return the records it dropped
   */
  long compacted(Segment seg, long keptBytes, long keptRecords) {
    long dropped = seg.records - keptRecords;
    pendingBytes -= seg.size - keptBytes;
    pendingRecords -= dropped;
    unsentRecords -= dropped; // the segment is after the read-ahead position
    seg.size = keptBytes;
    seg.records = keptRecords;
    seg.warningsOnly = true;
    return dropped;
  }

  /**
   * When a batch is due: {@link Instant#MIN} (now) once {@code batchSize} records are unsent,
   * {@code maxWait} after the oldest unsent was appended, or null while none is.
   */
  Instant batchDue(int batchSize, Duration maxWait) {
    if (unsentRecords >= batchSize) {
      return Instant.MIN;
    }
    if (unsentRecords == 0) {
      return null;
    }
    return oldestUnsentAt == Instant.MIN ? Instant.MIN : oldestUnsentAt.plus(maxWait);
  }

  /**
   * What the next read covers: from the read-ahead position to the end of its segment, moving past
   * segments read to their end; empty when nothing is left to read.
   *
   * @param headSeq the segment being appended to
   */
  Range nextRead(long headSeq) {
    if (sendSeq < readSeq) {
      // Read to its end, acknowledged and deleted meanwhile: on from the cursor.
      sendSeq = readSeq;
      sendPos = readPos;
    }
    while (true) {
      Segment seg = segments.get(sendSeq);
      if (seg == null) {
        return new Range(sendSeq, sendPos, sendPos);
      }
      if (sendPos < seg.size) {
        return new Range(sendSeq, sendPos, seg.size);
      }
      if (sendSeq == headSeq) {
        return new Range(sendSeq, sendPos, sendPos);
      }
      // Read to its end and no longer written: on to the next (ack deletes it).
      sendSeq = segments.higherKey(sendSeq);
      sendPos = 0;
    }
  }

  /** A batch was read from the range {@link #nextRead} gave: the read-ahead position moves. */
  void read(Spool.Batch b) {
    sendPos = b.endPosition();
    unsentRecords = Math.max(0, unsentRecords - b.records());
    oldestUnsentAt = unsentRecords > 0 ? Instant.MIN : null;
  }

  /**
   * Moves the cursor past {@code b}, deleting the segments it leaves behind.
   *
   * @param headSeq the segment being appended to, never deleted
   * @throws IllegalStateException when {@code b} does not start at the cursor
   */
  void ack(Spool.Batch b, long headSeq, Deleter deleter) throws IOException {
    skipFinishedSegments(headSeq, deleter);
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
    skipFinishedSegments(headSeq, deleter);
  }

  /** Deletes the cursor's segment while it is acknowledged to its end and no longer written. */
  private void skipFinishedSegments(long headSeq, Deleter deleter) throws IOException {
    while (readSeq != headSeq && readPos >= segments.get(readSeq).size) {
      segments.remove(readSeq);
      deleter.delete(readSeq);
      readSeq = segments.firstKey();
      readPos = 0;
    }
  }

  /** The cursor, for the cursor file. */
  SegmentFiles.Position cursor() {
    return new SegmentFiles.Position(readSeq, readPos);
  }

  long pendingBytes() {
    return pendingBytes;
  }

  long pendingRecords() {
    return pendingRecords;
  }

  int segmentCount() {
    return segments.size();
  }
}
