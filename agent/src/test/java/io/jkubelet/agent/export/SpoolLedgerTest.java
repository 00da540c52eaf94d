package io.jkubelet.agent.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.util.FakeClock;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The spool's accounts without any file: positions, the bound, batch timing and compaction. */
class SpoolLedgerTest {
  private static final int LINE = 10;
  private final FakeClock clock = new FakeClock();
  private final List<Long> deleted = new ArrayList<>();

  /** An empty spool with segment 1 as its head. */
  private static SpoolLedger empty() {
    return new SpoolLedger(new TreeMap<>(), new SegmentFiles.Position(1, 0), 0, 0);
  }

  private void append(SpoolLedger l, long seq, int lines, boolean warning) {
    for (int i = 0; i < lines; i++) {
      l.appended(l.segment(seq), LINE, warning, clock);
    }
  }

  private static Spool.Batch batch(SpoolLedger.Range r, int lines) {
    return new Spool.Batch(List.of(), r.segment(), r.start(), r.start() + lines * LINE, lines);
  }

  @Test
  void aReadMovesPastSegmentsReadToTheirEndButStopsAtTheHead() {
    SpoolLedger l = empty();
    append(l, 1, 2, false);
    append(l, 2, 3, false);
    SpoolLedger.Range first = l.nextRead(2);
    assertThat(first).isEqualTo(new SpoolLedger.Range(1, 0, 2 * LINE));
    l.read(batch(first, 2));
    assertThat(l.nextRead(2)).isEqualTo(new SpoolLedger.Range(2, 0, 3 * LINE));
    l.read(batch(l.nextRead(2), 3));
    assertThat(l.nextRead(2).isEmpty()).as("the head read to its end").isTrue();
  }

  @Test
  void acknowledgementsGoInReadOrderAndDeleteTheSegmentsLeftBehind() throws IOException {
    SpoolLedger l = empty();
    append(l, 1, 2, false);
    append(l, 2, 1, false);
    Spool.Batch first = batch(l.nextRead(2), 2);
    l.read(first);
    Spool.Batch second = batch(l.nextRead(2), 1);
    l.read(second);
    assertThatThrownBy(() -> l.ack(second, 2, deleted::add))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not next");
    l.ack(first, 2, deleted::add);
    assertThat(deleted).containsExactly(1L);
    assertThat(l.cursor()).isEqualTo(new SegmentFiles.Position(2, 0));
    l.ack(second, 2, deleted::add);
    assertThat(deleted).as("the head is never deleted").containsExactly(1L);
    assertThat(l.pendingBytes()).isZero();
    assertThat(l.pendingRecords()).isZero();
    assertThat(l.segmentCount()).isEqualTo(1);
  }

  @Test
  void aBatchIsDueWhenFullOrWhenItsOldestLineHasWaited() {
    SpoolLedger l = empty();
    Duration wait = Duration.ofSeconds(1);
    assertThat(l.batchDue(3, wait)).as("nothing unsent").isNull();
    Instant first = clock.instant();
    append(l, 1, 1, false);
    clock.step(Duration.ofMillis(300));
    append(l, 1, 1, false);
    assertThat(l.batchDue(3, wait)).isEqualTo(first.plus(wait));
    append(l, 1, 1, false);
    assertThat(l.batchDue(3, wait)).isEqualTo(Instant.MIN);
  }

  @Test
  void linesFoundAtStartUpAreDueAtOnce() {
    TreeMap<Long, SpoolLedger.Segment> found = new TreeMap<>();
    found.put(4L, new SpoolLedger.Segment(4));
    SpoolLedger l = new SpoolLedger(found, new SegmentFiles.Position(4, 0), 2 * LINE, 2);
    assertThat(l.batchDue(500, Duration.ofSeconds(1))).isEqualTo(Instant.MIN);
  }

  @Test
  void compactionSparesSegmentsBeingSentAndThoseWithWarningsOnly() {
    TreeMap<Long, SpoolLedger.Segment> found = new TreeMap<>();
    found.put(1L, scanned(1, false)); // being sent
    found.put(2L, scanned(2, true));
    found.put(3L, scanned(3, false));
    SpoolLedger l = new SpoolLedger(found, new SegmentFiles.Position(1, 0), 6 * LINE, 6);
    l.nextRead(4); // the read-ahead position is in segment 1
    assertThat(l.compactable()).extracting(s -> s.seq).containsExactly(3L);
    assertThat(l.fits(LINE, 6 * LINE)).isFalse();
    assertThat(l.compacted(found.get(3L), LINE, 1)).as("dropped").isEqualTo(1);
    assertThat(l.fits(LINE, 6 * LINE)).isTrue();
    assertThat(l.pendingRecords()).isEqualTo(5);
    assertThat(l.compactable()).isEmpty();
  }

  /** A segment of two lines as a start-up scan finds it. */
  private static SpoolLedger.Segment scanned(long seq, boolean warningsOnly) {
    SpoolLedger.Segment s = new SpoolLedger.Segment(seq);
    s.size = 2 * LINE;
    s.records = 2;
    s.warningsOnly = warningsOnly;
    return s;
  }
}
