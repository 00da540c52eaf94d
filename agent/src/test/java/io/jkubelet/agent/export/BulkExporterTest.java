package io.jkubelet.agent.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Time;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BulkExporterTest {
  @TempDir Path dir;
  final FakeSearchServer server = new FakeSearchServer();
  BulkExporter exporter;

  @AfterEach
  void tearDown() {
    if (exporter != null) {
      exporter.stop();
    }
    server.close();
  }

  BulkExporter start(int batch) {
    return start(batch, ExportOptions.DEFAULT_IN_FLIGHT);
  }

  BulkExporter start(int batch, int inFlight) {
    ExportTarget target = ExportTarget.parse(server.url(), null, null, "jkubelet-events");
    ExportOptions options =
        ExportOptions.defaults(dir.resolve("events-spool"), 1 << 20)
            .withBatching(batch, Duration.ofMillis(20))
            .withRetry(new Backoff.Policy(Duration.ofMillis(10), Duration.ofMillis(50)))
            .withInFlight(inFlight);
    exporter = BulkExporter.create(target, options, Time.system());
    exporter.start();
    return exporter;
  }

  static ExportDocument doc(String id, long count, String type) {
    return new ExportDocument(
        id,
        count,
        LocalDate.of(2026, 11, 23),
        "Warning".equals(type),
        "BackOff",
        "{\"uid\":\"" + id + "\",\"type\":\"" + type + "\",\"count\":" + count + "}");
  }

  @Test
  void documentsLandInTheDailyIndexAfterTheTemplateWithOneDocumentPerId() {
    start(500);
    for (int count = 1; count <= 40; count++) {
      exporter.export(doc("uid-a", count, "Warning"));
    }
    exporter.export(doc("uid-b", 1, "Normal"));
    await().until(() -> server.docs().size() == 2 && server.docs().get("uid-a").version() == 40);
    assertThat(server.templates()).hasSize(1);
    assertThat(server.templates().getFirst())
        .contains(
            "\"index_patterns\":[\"jkubelet-events-*\"]", "\"lastTimestamp\":{\"type\":\"date\"}");
    assertThat(server.docs().get("uid-a").index()).isEqualTo("jkubelet-events-2026.11.23");
    assertThat(server.docs().get("uid-a").source().get("count").asLong()).isEqualTo(40);
  }

  @Test
  void whileTheServerFailsEventsWaitInTheSpoolAndArriveInOrderAfterwards() {
    server.failNext(503, 503, 429, 502);
    start(10, 1);
    for (int i = 0; i < 95; i++) {
      exporter.export(doc("e" + i, 1, "Normal"));
    }
    await().until(() -> server.docs().size() == 95);
    assertThat(server.docs().keySet())
        .containsExactlyElementsOf(IntStream.range(0, 95).mapToObj(i -> "e" + i).toList());
    assertThat(exporter.counts()).containsEntry("failures", 4L).containsEntry("written", 95L);
    assertThat(exporter.spoolStats().pendingRecords()).isZero();
  }

  @Test
  void aRefusedDocumentIsSkippedAndBusyItemsAreSentAgain() {
    int[] busy = {2};
    server.itemStatus(
        d -> {
          String uid = d.get("uid").asText();
          if (uid.equals("bad")) {
            return 400; // a mapping conflict
          }
          if (uid.equals("busy") && busy[0]-- > 0) {
            return 429;
          }
          return 0;
        });
    start(500);
    exporter.export(doc("a", 1, "Normal"));
    exporter.export(doc("bad", 1, "Warning"));
    exporter.export(doc("busy", 1, "Warning"));
    exporter.export(doc("c", 1, "Normal"));
    await().until(() -> exporter.counts().getOrDefault("written", 0L) == 3);
    assertThat(server.docs()).containsOnlyKeys("a", "busy", "c");
    assertThat(exporter.counts()).containsEntry("rejected", 1L).containsEntry("written", 3L);
  }

  @Test
  void resendingAnOlderVersionNeverOverwritesANewerOne() {
    start(500);
    exporter.export(doc("x", 5, "Warning"));
    await().until(() -> server.docs().containsKey("x"));
    exporter.export(doc("x", 3, "Warning")); // a stale resend
    exporter.export(doc("y", 1, "Warning"));
    await().until(() -> server.docs().containsKey("y"));
    assertThat(server.docs().get("x").version()).isEqualTo(5);
    assertThat(exporter.counts()).containsEntry("stale", 1L);
  }

  @Test
  void aRestartSendsWhatTheLastRunSpooledAndNothingTwice() {
    server.failNext(503, 503, 503, 503, 503, 503, 503, 503, 503, 503, 503, 503);
    start(10);
    for (int i = 0; i < 30; i++) {
      exporter.export(doc("e" + i, 1, "Normal"));
    }
    exporter.stop();
    exporter = null;
    long before = server.writes();
    start(10);
    await().until(() -> server.docs().size() == 30);
    assertThat(server.writes() - before).isEqualTo(30);
  }

  @Test
  void twoBatchesAreInFlightAtOnceAndEveryEventArrivesOnce() {
    server.gateBulk(2); // the first two requests answer only once both have arrived
    start(10, 2);
    for (int i = 0; i < 50; i++) {
      exporter.export(doc("e" + i, 1, "Normal"));
    }
    await().until(() -> exporter.spoolStats().pendingRecords() == 0);
    assertThat(server.maxBulkInFlight()).isEqualTo(2);
    assertThat(server.docs().keySet())
        .containsExactlyInAnyOrderElementsOf(
            IntStream.range(0, 50).mapToObj(i -> "e" + i).toList());
    assertThat(server.writes()).isEqualTo(50);
  }

  @Test
  void aFailingBatchHoldsTheSpoolCursorWhileTheNextLandsAndIsReplayedAfterARestart() {
    // Batch 1 (a0..a8 and x at version 1) fails as long as the server is "down" for it; batch 2
    // (b0..b8 and x at version 2) lands meanwhile.
    boolean[] down = {true};
    server.requestStatus(body -> down[0] && body.contains("\"_id\":\"a0\"") ? 503 : 0);
    start(10, 2);
    for (int i = 0; i < 9; i++) {
      exporter.export(doc("a" + i, 1, "Normal"));
    }
    exporter.export(doc("x", 1, "Warning"));
    for (int i = 0; i < 9; i++) {
      exporter.export(doc("b" + i, 1, "Normal"));
    }
    exporter.export(doc("x", 2, "Warning"));
    await().until(() -> server.docs().containsKey("b8"));
    assertThat(server.docs()).doesNotContainKey("a0");
    assertThat(server.docs().get("x").version()).isEqualTo(2);
    // The cursor cannot pass batch 1, so batch 2 is still in the spool too.
    assertThat(exporter.spoolStats().pendingRecords()).isEqualTo(20);

    exporter.stop(); // batch 1 abandoned, as a kill would
    exporter = null;
    down[0] = false;
    start(10, 2);
    await().until(() -> exporter.spoolStats().pendingRecords() == 0);
    List<String> expected = new java.util.ArrayList<>();
    IntStream.range(0, 9).forEach(i -> expected.add("a" + i));
    IntStream.range(0, 9).forEach(i -> expected.add("b" + i));
    expected.add("x");
    assertThat(server.docs().keySet()).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(server.docs().get("x").version()).isEqualTo(2); // version 1 resent: stale
    assertThat(server.docs().get("x").source().get("count").asLong()).isEqualTo(2);
    assertThat(exporter.counts()).containsEntry("stale", 1L);
  }

  @Test
  void countBumpsOfOneEventInOneBatchAreSentAsItsNewestVersionOnly() {
    ExportTarget target = ExportTarget.parse(server.url(), null, null, "jkubelet-events");
    BulkExporter x =
        BulkExporter.create(
            target, ExportOptions.defaults(dir.resolve("spool"), 1 << 20), Time.system());
    List<ExportDocument> batch =
        List.of(
            doc("a", 1, "Warning"),
            doc("b", 1, "Normal"),
            doc("a", 3, "Warning"),
            doc("a", 2, "Warning"), // older than the one before it: left out too
            doc("c", 1, "Normal"));
    assertThat(x.coalesce(batch))
        .extracting(d -> d.id() + "@" + d.version())
        .containsExactly("b@1", "a@3", "c@1");
    assertThat(x.counts()).containsEntry("coalesced", 2L);
  }
}
