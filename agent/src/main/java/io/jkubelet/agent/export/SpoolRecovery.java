package io.jkubelet.agent.export;

import java.io.IOException;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Spool}'s start-up: where to resume, from what its directory holds. It deletes the
 * segments the cursor has left behind, scans the others (cutting torn tails, counting what is
 * pending), resumes at the oldest segment left when the cursor's own is gone, resends a segment
 * whose cursor is past its end, and names the segment that appends start.
 */
final class SpoolRecovery {
  /** The spool's logger: these lines were the spool's before its recovery was split from it. */
  private static final Logger log = LoggerFactory.getLogger(Spool.class);

  /**
   * The state a spool opens with.
   *
   * @param ledger the segments found (without the head, still to be opened), the cursor, and what
   *     is pending after it
   * @param headSeq the segment that appends start, after every one found
   */
  record Recovered(SpoolLedger ledger, long headSeq) {}

  private SpoolRecovery() {}

  /** Reads the cursor and the segments; creates the directory if needed. */
  static Recovered recover(SegmentFiles files) throws IOException {
    SegmentFiles.Position cursor = files.readCursor();
    long readSeq = cursor.segment();
    long readPos = cursor.offset();
    TreeMap<Long, SpoolLedger.Segment> segments = new TreeMap<>();
    long pendingBytes = 0;
    long pendingRecords = 0;
    for (long seq : files.list()) {
      if (seq < readSeq) {
        files.delete(seq);
        continue;
      }
      long from = seq == readSeq ? readPos : 0;
      SegmentFiles.Scan scan = files.scan(seq, from);
      SpoolLedger.Segment seg = new SpoolLedger.Segment(seq);
      seg.size = scan.size();
      seg.records = scan.records();
      seg.warningsOnly = scan.warningsOnly();
      segments.put(seq, seg);
      pendingBytes += Math.max(0, scan.size() - from);
      pendingRecords += scan.pendingRecords();
    }
    if (segments.isEmpty() || segments.firstKey() != readSeq) {
      // The cursor's segment is gone (fully acknowledged): resume at the oldest one left.
      readSeq = segments.isEmpty() ? readSeq : segments.firstKey();
      readPos = 0;
    } else if (readPos > segments.get(readSeq).size) {
      log.warn("event export: spool cursor {} is past its segment's end; resending it", readPos);
      readPos = 0;
    }
    long headSeq = segments.isEmpty() ? Math.max(readSeq, 1) : segments.lastKey() + 1;
    if (segments.isEmpty()) {
      readSeq = headSeq;
      readPos = 0;
    }
    return new Recovered(
        new SpoolLedger(
            segments, new SegmentFiles.Position(readSeq, readPos), pendingBytes, pendingRecords),
        headSeq);
  }
}
