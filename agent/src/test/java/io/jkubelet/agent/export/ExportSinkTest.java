package io.jkubelet.agent.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.jkubelet.agent.events.BroadcastRecorder;
import io.jkubelet.agent.events.EventBroadcaster;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.util.FakeClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ExportSinkTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  final FakeClock clock = new FakeClock();

  static ObjectReference pod(String name) {
    return new ObjectReferenceBuilder()
        .withKind("Pod")
        .withNamespace("default")
        .withName(name)
        .withUid("uid-" + name)
        .withApiVersion("v1")
        .build();
  }

  List<JsonNode> lines(Path file) throws Exception {
    return Files.readAllLines(file).stream()
        .map(
            l -> {
              try {
                return JSON.readTree(l);
              } catch (Exception e) {
                throw new AssertionError(l, e);
              }
            })
        .toList();
  }

  @Test
  void aRepeatedEventBumpsTheCountOfOneDocumentAndNoSpamIsDropped() throws Exception {
    Path file = dir.resolve("events.jsonl");
    var exporter = new JsonLinesExporter(file, 1 << 20, 2);
    var sink = new ExportSink(clock, List.of(exporter));
    var broadcaster = EventBroadcaster.create();
    broadcaster.addWatcher("export", sink);
    var recorder = new BroadcastRecorder(clock, "node1", broadcaster);
    sink.start();
    broadcaster.start();
    try {
      for (int i = 0; i < 40; i++) {
        recorder.event(pod("web"), EventType.Warning, "BackOff", "Back-off restarting");
        clock.step(java.time.Duration.ofSeconds(10));
      }
      // 30 different pods pulling: the API sink's spam filter would keep 25 of one object.
      for (int i = 0; i < 30; i++) {
        recorder.event(pod("web"), EventType.Normal, "Pulled", "image " + (i % 3));
      }
      await().until(() -> exporter.counts().getOrDefault("written", 0L) == 70L);
    } finally {
      broadcaster.stop();
      sink.stop();
    }
    List<JsonNode> docs = lines(file);
    List<JsonNode> backoffs =
        docs.stream().filter(d -> d.get("reason").asText().equals("BackOff")).toList();
    assertThat(backoffs).hasSize(40);
    assertThat(backoffs.stream().map(d -> d.get("uid").asText()).distinct()).hasSize(1);
    assertThat(backoffs.getLast().get("count").asInt()).isEqualTo(40);
    assertThat(backoffs.getLast().get("firstTimestamp").asText())
        .isEqualTo(backoffs.getFirst().get("firstTimestamp").asText())
        .isNotEqualTo(backoffs.getLast().get("lastTimestamp").asText());
    assertThat(backoffs.getLast().get("involvedObject").get("kind").asText()).isEqualTo("Pod");
    assertThat(backoffs.getLast().get("source").get("host").asText()).isEqualTo("node1");
    // Three messages: three documents whose counts reach 10 each.
    Map<String, Integer> pulled = new java.util.TreeMap<>();
    docs.stream()
        .filter(d -> d.get("reason").asText().equals("Pulled"))
        .forEach(d -> pulled.merge(d.get("uid").asText(), d.get("count").asInt(), Math::max));
    assertThat(pulled.values()).containsExactly(10, 10, 10);
  }

  @Test
  void theFileIsRotatedBySizeKeepingTheNewestFiles() throws Exception {
    Path file = dir.resolve("events.jsonl");
    var exporter = new JsonLinesExporter(file, 1000, 2);
    exporter.start();
    for (int i = 0; i < 200; i++) {
      exporter.export(BulkExporterTest.doc("e" + i, 1, "Normal"));
    }
    exporter.stop();
    assertThat(file.resolveSibling("events.jsonl.1")).exists();
    assertThat(file.resolveSibling("events.jsonl.2")).exists();
    assertThat(file.resolveSibling("events.jsonl.3")).doesNotExist();
    assertThat(Files.size(file)).isLessThanOrEqualTo(1000);
    assertThat(lines(file).getLast().get("uid").asText()).isEqualTo("e199");
  }

  @Test
  void anEventWithAUidKeepsItAndOneWithoutGetsAStableNameBasedId() {
    var e =
        new io.fabric8.kubernetes.api.model.EventBuilder()
            .withNewMetadata()
            .withNamespace("kube-system")
            .withName("web.1")
            .endMetadata()
            .withNewSource()
            .withHost("node1")
            .endSource()
            .withType("Warning")
            .withReason("OOMKilling")
            .withCount(3)
            .withFirstTimestamp("2026-11-22T23:59:59Z")
            .withLastTimestamp("2026-11-23T00:00:10Z")
            .build();
    ExportDocument d = EventDocuments.of(e);
    assertThat(d.id()).isEqualTo(EventDocuments.of(e).id()).hasSize(36);
    assertThat(d.day()).isEqualTo(java.time.LocalDate.of(2026, 11, 22));
    assertThat(d.version()).isEqualTo(3);
    assertThat(d.warning()).isTrue();
    e.getMetadata().setUid("8f1c-uid");
    assertThat(EventDocuments.of(e).id()).isEqualTo("8f1c-uid");
  }

  @Test
  void urlCredentialsAndPathArePartsOfTheTarget() throws Exception {
    ExportTarget t =
        ExportTarget.parse("https://elastic:s%40cret@es.example:9200/", null, null, "ev");
    assertThat(t.base()).isEqualTo("https://es.example:9200");
    assertThat(t.authorization())
        .isEqualTo(
            "Basic " + java.util.Base64.getEncoder().encodeToString("elastic:s@cret".getBytes()));
    assertThat(t.toString()).doesNotContain("cret");
    Path creds = dir.resolve("creds");
    Files.writeString(creds, "admin:pw\n");
    assertThat(ExportTarget.parse("http://h:1/es", creds, null, "ev").authorization())
        .isEqualTo("Basic " + java.util.Base64.getEncoder().encodeToString("admin:pw".getBytes()));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ExportTarget.parse("ftp://h", null, null, "ev"))
        .hasMessageContaining("not an http or https URL");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ExportTarget.parse("http://h", null, null, "Events"))
        .hasMessageContaining("not a valid index name");
  }

  @Test
  void anEventsV1EventMapsToTheSameDocumentAsItsCoreView() throws Exception {
    var v1 =
        new io.fabric8.kubernetes.api.model.events.v1.EventBuilder()
            .withNewMetadata()
            .withNamespace("default")
            .withName("web.1")
            .withUid("uid-1")
            .endMetadata()
            .withNewRegarding()
            .withKind("Pod")
            .withName("web")
            .endRegarding()
            .withType("Warning")
            .withReason("BackOff")
            .withNote("Back-off restarting failed container")
            .withNewSeries()
            .withCount(7)
            .withNewLastObservedTime("2026-11-23T10:00:00.000000Z")
            .endSeries()
            .withDeprecatedFirstTimestamp("2026-11-23T09:00:00Z")
            .withReportingController("kubelet")
            .build();
    ExportDocument d = EventV1Documents.of(v1);
    assertThat(d.id()).isEqualTo("uid-1");
    assertThat(d.version()).isEqualTo(7);
    JsonNode json = JSON.readTree(d.json());
    assertThat(json.get("message").asText()).isEqualTo("Back-off restarting failed container");
    assertThat(json.get("lastTimestamp").asText()).isEqualTo("2026-11-23T10:00:00.000000Z");
    assertThat(json.get("firstTimestamp").asText()).isEqualTo("2026-11-23T09:00:00Z");
    assertThat(json.at("/involvedObject/kind").asText()).isEqualTo("Pod");
    assertThat(json.get("reportingComponent").asText()).isEqualTo("kubelet");
  }
}
