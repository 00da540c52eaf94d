package io.jkubelet.agent.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Time;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.concurrent.TimeUnit;
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
    ExportTarget target = ExportTarget.parse(server.url(), null, null, "jkubelet-events");
    ExportOptions options =
        ExportOptions.defaults(dir.resolve("events-spool"), 1 << 20)
            .withBatching(batch, Duration.ofMillis(20))
            .withRetry(new Backoff.Policy(Duration.ofMillis(10), Duration.ofMillis(50)));
    exporter = new BulkExporter(target, options, Time.system());
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
    start(10);
    for (int i = 0; i < 95; i++) {
      exporter.export(doc("e" + i, 1, "Normal"));
    }
    await().until(() -> server.docs().size() == 95);
    assertThat(server.docs().keySet())
        .containsExactlyElementsOf(
            java.util.stream.IntStream.range(0, 95).mapToObj(i -> "e" + i).toList());
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
    await().until(() -> server.docs().size() == 3);
    assertThat(server.docs()).containsKeys("a", "busy", "c").doesNotContainKey("bad");
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
}
