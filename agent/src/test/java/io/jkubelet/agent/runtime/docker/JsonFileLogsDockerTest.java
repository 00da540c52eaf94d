package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.LogConfig;
import io.jkubelet.agent.runtime.LogRequest;
import io.jkubelet.agent.runtime.LogSink;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Against a real engine: the json-file reader gives the same bytes as the engine's log API for the
 * same requests (all, tail, since, timestamps), over escapes, invalid UTF-8, a line split at 16
 * KiB, stderr, a TTY, and rotated (and compressed) files.
 */
@Timeout(120)
class JsonFileLogsDockerTest {
  private static final String BUSYBOX = "jkubelet/busybox:1.35";
  private static final String TEST_LABEL = "io.jkubelet.test";
  private static final String RUN_ID = UUID.randomUUID().toString().substring(0, 13);

  private static DockerClient docker;
  private static EngineLogs api;
  private static JsonFileLogs files;

  @BeforeAll
  static void connect() {
    docker = TestDockerClient.connect();
    api = new EngineLogs(new DockerClients(docker, docker, false), DockerRuntime.DEFAULT_HOST);
    files = new JsonFileLogs(DockerRuntime.DEFAULT_HOST);
  }

  @AfterEach
  void removeThisRunsContainers() {
    TestDockerClient.removeLabelled(docker, TEST_LABEL, RUN_ID);
  }

  @AfterAll
  static void close() throws IOException {
    if (docker != null) {
      new JsonFileLogsDockerTest().removeThisRunsContainers();
      docker.close();
    }
  }

  @Test
  void theFileGivesTheApisBytesForEveryKindOfRequest() throws Exception {
    String id =
        run(
            "printf 'quote\" back\\\\ <html> & tab\\t cr\\r ctl\\001 é bad\\377\\303x\\n';"
                + " echo to stderr >&2; head -c 40000 /dev/zero | tr '\\0' x; echo;"
                + " sleep 0.05; echo after; printf 'no newline'",
            false,
            Map.of());

    assertSame(id);
    assertThat(viaFile(id, request(OptionalLong.empty(), Optional.empty(), false)))
        .contains("quote\" back\\ <html> & tab\t cr\r ctl\u0001 é bad\ufffd\ufffdx\n")
        .endsWith("after\nno newline");
  }

  @Test
  void aTtysOutputIsTheSame() throws Exception {
    String id = run("echo one; echo two", true, Map.of());

    assertSame(id);
    assertThat(viaFile(id, request(OptionalLong.empty(), Optional.empty(), false)))
        .isEqualTo("one\r\ntwo\r\n");
  }

  @Test
  void rotatedAndCompressedFilesAreReadAsTheEngineReadsThem() throws Exception {
    String script = "i=0; while [ $i -lt 300 ]; do echo line $i; i=$((i+1)); done";
    String rotated = run(script, false, Map.of("max-size", "1k", "max-file", "3"));
    String compressed =
        run(script, false, Map.of("max-size", "1k", "max-file", "3", "compress", "true"));

    for (String id : List.of(rotated, compressed)) {
      // NOTE: the engine (20.10) drops compressed files from a since read; the file reader does
      // not.
      assertSame(id, id.equals(rotated));
      String all = viaFile(id, request(OptionalLong.empty(), Optional.empty(), false));
      try (JsonLogFiles f = files.files(api.inspect(id)).orElseThrow()) {
        assertThat(f.parts()).as("the live file and two rotated ones").hasSize(3);
        assertThat(f.parts().get(0).gzip()).isEqualTo(id.equals(compressed));
      }
      assertThat(all).endsWith("line 299\n").doesNotContain("line 0\n");
      assertThat(viaFile(id, request(OptionalLong.of(100), Optional.empty(), false)))
          .isEqualTo(all);
    }
  }

  /** The API's output and the file's agree for all, tails, since, timestamps and combinations. */
  private static void assertSame(String id) throws Exception {
    assertSame(id, true);
  }

  private static void assertSame(String id, boolean since) throws Exception {
    String stamped = viaApi(id, request(OptionalLong.empty(), Optional.empty(), true));
    // One element per log entry, its stamp first (a 16 KiB part has no newline of its own).
    String[] entries = stamped.split("(?=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z )");
    Instant middle = stamp(entries[entries.length / 2]);
    // The engine stamps stdout and stderr in two copiers, so the file is not always in time order:
    // since keeps each entry stamped at or after it, wherever it sits.
    StringBuilder kept = new StringBuilder();
    for (String entry : entries) {
      if (!stamp(entry).isBefore(middle)) {
        kept.append(entry);
      }
    }
    assertThat(kept.length()).as("since drops the earliest entries").isLessThan(stamped.length());
    assertThat(viaFile(id, request(OptionalLong.empty(), Optional.of(middle), true)))
        .as("since")
        .isEqualTo(kept.toString());
    for (LogRequest r :
        List.of(
            request(OptionalLong.empty(), Optional.empty(), false),
            request(OptionalLong.empty(), Optional.empty(), true),
            request(OptionalLong.of(0), Optional.empty(), false),
            request(OptionalLong.of(1), Optional.empty(), true),
            request(OptionalLong.of(3), Optional.empty(), false),
            request(OptionalLong.of(40), Optional.empty(), false),
            request(OptionalLong.empty(), Optional.of(middle), true),
            request(OptionalLong.of(2), Optional.of(middle), false))) {
      if (r.since().isPresent() && !since) {
        continue;
      }
      assertThat(viaFile(id, r)).as(r.toString()).isEqualTo(viaApi(id, r));
    }
  }

  private static Instant stamp(String entry) {
    return Instant.parse(entry.substring(0, entry.indexOf(' ')));
  }

  private static LogRequest request(
      OptionalLong tail, Optional<Instant> since, boolean timestamps) {
    return new LogRequest(false, tail, since, timestamps);
  }

  private static String viaApi(String id, LogRequest r) throws Exception {
    return read(sink -> api.read(id, r, sink));
  }

  private static String viaFile(String id, LogRequest r) throws Exception {
    JsonLogFiles f = files.files(api.inspect(id)).orElseThrow();
    return read(sink -> files.read(f, r, sink));
  }

  /** Opens a log stream into the sink (shared with {@code DockerRuntimeTest}). */
  interface Opener {
    AutoCloseable open(LogSink sink) throws Exception;
  }

  /** Everything the stream delivers, once it ended without an error. */
  static String read(Opener opener) throws Exception {
    var out = new ByteArrayOutputStream();
    var ended = new CompletableFuture<Throwable>();
    try (AutoCloseable s =
        opener.open(
            new LogSink() {
              @Override
              public synchronized void output(byte[] bytes) {
                out.writeBytes(bytes);
              }

              @Override
              public void end(Throwable error) {
                ended.complete(error);
              }
            })) {
      assertThat(ended.get(30, TimeUnit.SECONDS)).isNull();
    }
    return out.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static String run(String script, boolean tty, Map<String, String> logConfig) {
    String id =
        docker
            .createContainerCmd(BUSYBOX)
            .withEntrypoint("sh", "-c")
            .withCmd(script)
            .withTty(tty)
            .withLabels(Map.of(TEST_LABEL, RUN_ID))
            .withHostConfig(
                HostConfig.newHostConfig()
                    .withLogConfig(new LogConfig(LogConfig.LoggingType.JSON_FILE, logConfig)))
            .exec()
            .getId();
    docker.startContainerCmd(id).exec();
    docker.waitContainerCmd(id).start().awaitStatusCode(60, TimeUnit.SECONDS);
    return id;
  }
}
