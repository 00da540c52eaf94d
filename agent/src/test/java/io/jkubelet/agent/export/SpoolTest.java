package io.jkubelet.agent.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.util.FakeClock;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpoolTest {
  @TempDir Path dir;
  final FakeClock clock = new FakeClock();

  static ExportDocument doc(String id, boolean warning, String reason) {
    return new ExportDocument(
        id,
        1,
        LocalDate.of(2026, 11, 23),
        warning,
        reason,
        "{\"uid\":\"" + id + "\",\"pad\":\"" + "x".repeat(100) + "\"}");
  }

  static List<String> drain(Spool s) throws IOException {
    List<String> ids = new ArrayList<>();
    while (true) {
      Spool.Batch b = s.read(7, 1 << 20);
      if (b.documents().isEmpty() && b.bytes() == 0) {
        return ids;
      }
      b.documents().forEach(d -> ids.add(d.id()));
      s.ack(b);
    }
  }

  @Test
  void recordsComeBackInOrderAcrossSegmentsAndAreGoneOnceAcknowledged() throws IOException {
    try (Spool s = Spool.open(dir, 1 << 20, 1024, clock)) {
      for (int i = 0; i < 50; i++) {
        assertThat(s.append(doc("e" + i, i % 3 == 0, "Pulled"))).isTrue();
      }
      assertThat(s.stats().segments()).isGreaterThan(3);
      assertThat(s.stats().pendingRecords()).isEqualTo(50);
      List<String> ids = drain(s);
      assertThat(ids).hasSize(50).startsWith("e0", "e1").endsWith("e49");
      assertThat(s.stats().pendingRecords()).isZero();
      assertThat(s.stats().pendingBytes()).isZero();
      assertThat(s.stats().segments()).isEqualTo(1);
    }
  }

  @Test
  void aRestartResumesAtTheCursorWithNothingLostAndNothingRepeated() throws IOException {
    int acked;
    try (Spool s = Spool.open(dir, 1 << 20, 1024, clock)) {
      for (int i = 0; i < 30; i++) {
        s.append(doc("e" + i, false, "Started"));
      }
      Spool.Batch first = s.read(10, 1 << 20);
      acked = first.documents().size();
      s.ack(first);
      Spool.Batch unacked = s.read(5, 1 << 20);
      assertThat(unacked.documents()).hasSize(5); // read, never acknowledged: sent again
    }
    try (Spool s = Spool.open(dir, 1 << 20, 1024, clock)) {
      assertThat(s.stats().pendingRecords()).isEqualTo(30 - acked);
      s.append(doc("after", false, "Started"));
      List<String> ids = drain(s);
      assertThat(ids).hasSize(31 - acked).startsWith("e" + acked).endsWith("e29", "after");
    }
  }

  @Test
  void aTornLastLineIsCutOffAtOpen() throws IOException {
    try (Spool s = Spool.open(dir, 1 << 20, 1 << 20, clock)) {
      s.append(doc("a", false, "R"));
      s.append(doc("b", false, "R"));
    }
    Path seg;
    try (Stream<Path> files = Files.list(dir)) {
      seg = files.filter(p -> p.toString().endsWith(".seg")).sorted().toList().getLast();
    }
    try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.WRITE)) {
      ch.truncate(ch.size() - 10); // a crash inside the write of "b"
    }
    try (Spool s = Spool.open(dir, 1 << 20, 1 << 20, clock)) {
      assertThat(s.stats().pendingRecords()).isEqualTo(1);
      s.append(doc("c", false, "R"));
      assertThat(drain(s)).containsExactly("a", "c");
    }
  }

  @Test
  void overTheBoundNormalEventsAreDroppedAndCountedByReason() throws IOException {
    long line = SpoolRecord.encode(doc("e0", false, "Pulled")).length;
    try (Spool s = Spool.open(dir, line * 10, line * 3, clock)) {
      for (int i = 0; i < 10; i++) {
        assertThat(s.append(doc("e" + i, false, "Pulled"))).isTrue();
      }
      assertThat(s.append(doc("n10", false, "Pulled"))).isFalse();
      assertThat(s.append(doc("n11", false, "Created"))).isFalse();
      assertThat(s.stats().dropped())
          .containsEntry("Normal", java.util.Map.of("Pulled", 1L, "Created", 1L));
      assertThat(s.stats().pendingBytes()).isLessThanOrEqualTo(line * 10);
    }
  }

  @Test
  void aWarningOverTheBoundDropsOlderNormalEventsButNotTheSegmentBeingSent() throws IOException {
    long line = SpoolRecord.encode(doc("e0", false, "Pulled")).length;
    try (Spool s = Spool.open(dir, line * 9, line * 3, clock)) {
      for (int i = 0; i < 9; i++) {
        s.append(doc("e" + i, i == 4, "Pulled")); // e4 is a Warning
      }
      assertThat(s.append(doc("w1", true, "BackOff"))).isTrue();
      // e0..e2 (the cursor's segment) stay; segment e3..e5 lost its Normal events, e4 stays.
      assertThat(s.stats().dropped().get("Normal")).containsEntry("Pulled", 2L);
      assertThat(drain(s)).containsExactly("e0", "e1", "e2", "e4", "e6", "e7", "e8", "w1");
    }
  }

  @Test
  void aWarningIsDroppedOnlyWhenNothingElseCanBe() throws IOException {
    long line = SpoolRecord.encode(doc("w0", true, "BackOff")).length;
    try (Spool s = Spool.open(dir, line * 4, line * 2, clock)) {
      for (int i = 0; i < 4; i++) {
        assertThat(s.append(doc("w" + i, true, "BackOff"))).isTrue();
      }
      assertThat(s.append(doc("w4", true, "OOMKilling"))).isFalse();
      assertThat(s.stats().dropped()).containsEntry("Warning", java.util.Map.of("OOMKilling", 1L));
      assertThat(drain(s)).containsExactly("w0", "w1", "w2", "w3");
    }
  }

  @Test
  void aBatchIsDueAtItsSizeOrOnceItsOldestRecordHasWaited() throws Exception {
    try (Spool s = Spool.open(dir, 1 << 20, 1 << 20, clock)) {
      assertThat(s.awaitBatch(2, Duration.ofSeconds(1), Duration.ZERO)).isFalse();
      s.append(doc("a", false, "R"));
      assertThat(s.awaitBatch(2, Duration.ofSeconds(1), Duration.ZERO)).isFalse();
      clock.step(Duration.ofSeconds(1));
      assertThat(s.awaitBatch(2, Duration.ofSeconds(1), Duration.ZERO)).isTrue();
      s.append(doc("b", false, "R"));
      assertThat(s.awaitBatch(2, Duration.ofSeconds(1), Duration.ZERO)).isTrue();
    }
  }

  @Test
  void recordsSurviveTheirRoundTripThroughTheSpoolFormat() {
    ExportDocument d =
        new ExportDocument(
            "0b6f-1", 42, LocalDate.of(2026, 1, 2), true, "Back\tOff", "{\"m\":\"a\\tb\"}");
    String line = new String(SpoolRecord.encode(d), java.nio.charset.StandardCharsets.UTF_8);
    ExportDocument back = SpoolRecord.decode(line.substring(0, line.length() - 1));
    assertThat(back).isEqualTo(d);
    assertThat(back.reason()).isEqualTo("Back_Off");
  }

  @Test
  void batchesReadAheadAreAcknowledgedOnlyInOrderAndTheCursorStaysAtTheFirstUnanswered()
      throws Exception {
    try (Spool s = Spool.open(dir, 1 << 20, 1024, clock)) {
      for (int i = 0; i < 20; i++) {
        s.append(doc("e" + i, false, "Started"));
      }
      Spool.Batch first = s.read(5, 1 << 20);
      Spool.Batch second = s.read(5, 1 << 20);
      assertThat(second.documents().getFirst().id()).isEqualTo("e5");
      assertThatThrownBy(() -> s.ack(second)).isInstanceOf(IllegalStateException.class);
      assertThat(s.stats().pendingRecords()).isEqualTo(20);
      assertThat(s.awaitBatch(10, Duration.ofSeconds(1), Duration.ZERO)).isTrue(); // 10 unread
      s.ack(first);
      assertThat(s.stats().pendingRecords()).isEqualTo(15);
    }
    try (Spool s = Spool.open(dir, 1 << 20, 1024, clock)) {
      // The second batch was read, never acknowledged: it comes back after a restart.
      assertThat(drain(s)).hasSize(15).startsWith("e5").endsWith("e19");
    }
  }
}
