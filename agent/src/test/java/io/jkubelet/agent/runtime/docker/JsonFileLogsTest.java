package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.command.InspectContainerResponse;
import io.jkubelet.agent.runtime.LogRequest;
import io.jkubelet.agent.runtime.LogSink;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The json-file reader over files written in the engine's format: whole logs across rotated (and
 * gzipped) files, tail, since, timestamps, 16 KiB parts, JSON escapes and invalid UTF-8 as Go's
 * decoder reads them, and the files the engine may leave (empty, cut mid-line).
 */
class JsonFileLogsTest {
  private static final String T0 = "2026-11-23T10:00:00.1Z";
  private static final String T1 = "2026-11-23T10:00:01.000000002Z";
  private static final String T2 = "2026-11-23T10:00:02.5Z";
  private static final String T3 = "2026-11-23T10:00:03Z";
  private static final String T4 = "2026-11-23T10:00:04.123456789Z";

  @TempDir Path dir;

  private Path live() {
    return dir.resolve("abc-json.log");
  }

  @Test
  void aWholeLogIsTheRotatedFilesOldestFirstThenTheLiveOneStdoutAndStderrInFileOrder()
      throws IOException {
    gzip(Path.of(live() + ".2.gz"), entry("zero\n", "stdout", T0));
    write(Path.of(live() + ".1"), entry("one\n", "stderr", T1) + entry("two\n", "stdout", T2));
    write(live(), entry("three\n", "stderr", T3) + entry("four\n", "stdout", T4));

    assertThat(read(3, all())).isEqualTo("zero\none\ntwo\nthree\nfour\n");
    assertThat(read(2, all())).as("max-file 2 keeps no .2").isEqualTo("one\ntwo\nthree\nfour\n");
    assertThat(read(1, all())).as("no rotation").isEqualTo("three\nfour\n");
  }

  @Test
  void tailCountsLinesFromTheEndBackwardsAcrossRotatedFilesThenSinceFilters() throws IOException {
    gzip(Path.of(live() + ".2.gz"), entry("zero\n", "stdout", T0) + entry("zero2\n", "stdout", T0));
    write(Path.of(live() + ".1"), entry("one\n", "stderr", T1) + entry("two\n", "stdout", T2));
    write(live(), entry("three\n", "stderr", T3) + entry("four\n", "stdout", T4));

    assertThat(read(3, tail(0))).isEmpty();
    assertThat(read(3, tail(1))).isEqualTo("four\n");
    assertThat(read(3, tail(2))).isEqualTo("three\nfour\n");
    assertThat(read(3, tail(3))).isEqualTo("two\nthree\nfour\n");
    assertThat(read(3, tail(4))).isEqualTo("one\ntwo\nthree\nfour\n");
    assertThat(read(3, tail(5)))
        .as("into the gzipped file")
        .isEqualTo("zero2\none\ntwo\nthree\nfour\n");
    assertThat(read(3, tail(100))).isEqualTo("zero\nzero2\none\ntwo\nthree\nfour\n");
    assertThat(read(3, new LogRequest(false, OptionalLong.of(3), since(T3), false)))
        .as("tail first, then since")
        .isEqualTo("three\nfour\n");
  }

  @Test
  void sinceKeepsEntriesAtOrAfterItToTheNanosecond() throws IOException {
    write(
        live(),
        entry("a\n", "stdout", T1) + entry("b\n", "stdout", T2) + entry("c\n", "stdout", T4));

    assertThat(read(1, new LogRequest(false, OptionalLong.empty(), since(T2), false)))
        .isEqualTo("b\nc\n");
    Instant justAfter = Instant.parse(T2).plusNanos(1);
    assertThat(read(1, new LogRequest(false, OptionalLong.empty(), Optional.of(justAfter), false)))
        .isEqualTo("c\n");
    assertThat(
            read(
                1,
                new LogRequest(false, OptionalLong.empty(), Optional.of(Instant.parse(T1)), false)))
        .isEqualTo("a\nb\nc\n");
  }

  @Test
  void timestampsAreRfc3339NanoFixedInUtc() throws IOException {
    write(
        live(),
        entry("a\n", "stdout", T2)
            + entry("b\n", "stderr", T3)
            + entry("c\n", "stdout", "2026-11-23T12:00:00.25+02:00"));

    assertThat(read(1, new LogRequest(false, OptionalLong.empty(), Optional.empty(), true)))
        .isEqualTo(
            "2026-11-23T10:00:02.500000000Z a\n"
                + "2026-11-23T10:00:03.000000000Z b\n"
                + "2026-11-23T10:00:00.250000000Z c\n");
  }

  @Test
  void anEntrySplitIntoPartsIsTheirContentsEachPartWithItsOwnTime() throws IOException {
    String first = "x".repeat(16 * 1024);
    write(
        live(),
        entry(first, "stdout", T1)
            + entry("end\n", "stdout", T2)
            + entry("no newline", "stderr", T3));

    assertThat(read(1, all())).isEqualTo(first + "end\nno newline");
    assertThat(read(1, new LogRequest(false, OptionalLong.empty(), Optional.empty(), true)))
        .isEqualTo(
            "2026-11-23T10:00:01.000000002Z "
                + first
                + "2026-11-23T10:00:02.500000000Z end\n"
                + "2026-11-23T10:00:03.000000000Z no newline");
  }

  @Test
  void escapesAreDecodedAsGoDoesAndInvalidUtf8BecomesTheReplacementCharacter() throws IOException {
    var file = new ByteArrayOutputStream();
    file.writeBytes(
        ("{\"log\":\"q\\\" b\\\\ s\\/ \\b\\f\\r\\t \\u003chtml\\u003e \\u00e9 é \\ud83d\\ude00"
                + " lone \\ud800 x\\n\",\"stream\":\"stdout\",\"time\":\""
                + T1
                + "\"}\n")
            .getBytes(StandardCharsets.UTF_8));
    file.writeBytes("{\"log\":\"bad ".getBytes(StandardCharsets.UTF_8));
    file.writeBytes(
        new byte[] {(byte) 0xff, (byte) 0xc3, 'a', (byte) 0xed, (byte) 0xa0, (byte) 0x80});
    file.writeBytes(
        ("\\n\",\"stream\":\"stderr\",\"time\":\"" + T2 + "\"}\n")
            .getBytes(StandardCharsets.UTF_8));
    Files.write(live(), file.toByteArray());

    String r = "\ufffd";
    assertThat(read(1, all()))
        .isEqualTo(
            "q\" b\\ s/ \b\f\r\t <html> é é \uD83D\uDE00 lone "
                + r
                + " x\n"
                + "bad "
                + r
                + r
                + "a"
                + r
                + r
                + r
                + "\n");
  }

  @Test
  void otherShapesOfTheSameObjectAreReadToo() throws IOException {
    write(
        live(),
        "{\"log\":\"with attrs\\n\",\"stream\":\"stdout\",\"attrs\":{\"a\":\"b\"},\"time\":\""
            + T1
            + "\"}\n"
            + "{ \"time\": \""
            + T2
            + "\", \"stream\": \"stderr\", \"log\": \"reordered \\u00e9\\n\" }\n"
            + "not json\n"
            + "{\"log\":\"no stream\\n\",\"time\":\""
            + T3
            + "\"}\n"
            + entry("last\n", "stdout", T4));

    assertThat(read(1, all())).isEqualTo("with attrs\nreordered é\nlast\n");
  }

  @Test
  void anEmptyFileIsAnEmptyLogAndACutLastLineIsSkipped() throws IOException {
    write(live(), "");
    assertThat(read(1, all())).isEmpty();
    assertThat(read(1, tail(10))).isEmpty();

    String whole = entry("a\n", "stdout", T1) + entry("b\n", "stdout", T2);
    write(live(), whole + whole.substring(0, 30));
    assertThat(read(1, all())).isEqualTo("a\nb\n");
    assertThat(read(1, tail(1))).as("the cut line is not counted").isEqualTo("b\n");
  }

  @Test
  void longLinesBeyondTheReadBufferAreRead() throws IOException {
    String big = "é\"".repeat(200_000) + "\n";
    write(
        live(), entry("a\n", "stdout", T1) + entry(big, "stdout", T2) + entry("c\n", "stdout", T3));
    assertThat(read(1, all())).isEqualTo("a\n" + big + "c\n");
  }

  @Test
  void linesAcrossManyReadsAreAllReadWhereverTheReadsCutThem() throws IOException {
    StringBuilder file = new StringBuilder();
    StringBuilder plain = new StringBuilder();
    StringBuilder stamped = new StringBuilder();
    for (int i = 0; i < 40_000; i++) {
      String content =
          "line "
              + i
              + " é\uD83D\uDE00 \"q\" <x>\t"
              + "z".repeat(i % 53)
              + (i % 7 == 0 ? "" : "\n");
      file.append(entry(content, i % 3 == 0 ? "stderr" : "stdout", i % 2 == 0 ? T1 : T2));
      plain.append(content);
      stamped
          .append(
              i % 2 == 0 ? "2026-11-23T10:00:01.000000002Z " : "2026-11-23T10:00:02.500000000Z ")
          .append(content);
    }
    write(live(), file.toString());

    assertThat(read(1, all())).isEqualTo(plain.toString());
    assertThat(read(1, new LogRequest(false, OptionalLong.empty(), Optional.empty(), true)))
        .isEqualTo(stamped.toString());
  }

  @Test
  void closingStopsTheReadWithoutAnEnd() throws IOException {
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 20_000; i++) {
      lines.append(entry("line " + i + " " + "y".repeat(80) + "\n", "stdout", T1));
    }
    write(live(), lines.toString());
    List<byte[]> chunks = new ArrayList<>();
    List<Throwable> ends = new ArrayList<>();
    JsonFileLogs.Reader[] reader = new JsonFileLogs.Reader[1];
    reader[0] =
        new JsonFileLogs.Reader(
            JsonLogFiles.open(live(), 1),
            all(),
            new LogSink() {
              @Override
              public void output(byte[] bytes) {
                chunks.add(bytes);
                reader[0].close();
              }

              @Override
              public void end(Throwable error) {
                ends.add(error);
              }
            });
    reader[0].run();

    assertThat(chunks).hasSize(1);
    assertThat(chunks.get(0).length).isLessThanOrEqualTo(JsonFileLogs.CHUNK);
    assertThat(ends).isEmpty();
  }

  @Test
  void onlyALocalEnginesJsonFileLogWithAReadablePathIsReadDirectly() throws IOException {
    write(live(), entry("a\n", "stdout", T1));
    JsonFileLogs local = new JsonFileLogs("unix:///var/run/docker.sock");

    try (JsonLogFiles f = local.files(inspected("json-file", live().toString())).orElseThrow()) {
      assertThat(f.parts()).hasSize(1);
    }
    assertThat(local.files(inspected("journald", live().toString()))).isEmpty();
    assertThat(local.files(inspected("json-file", dir.resolve("gone-json.log").toString())))
        .isEmpty();
    assertThat(local.files(inspected("json-file", ""))).isEmpty();
    assertThat(
            new JsonFileLogs("tcp://10.0.0.1:2375")
                .files(inspected("json-file", live().toString())))
        .isEmpty();
  }

  private static InspectContainerResponse inspected(String driver, String path) throws IOException {
    String json =
        "{\"Id\":\"abc\",\"LogPath\":\""
            + path
            + "\",\"HostConfig\":{\"LogConfig\":{\"Type\":\""
            + driver
            + "\",\"Config\":{\"max-file\":\"3\"}}}}";
    return new ObjectMapper()
        .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
        .readValue(json, InspectContainerResponse.class);
  }

  private String read(int maxFiles, LogRequest request) throws IOException {
    var out = new ByteArrayOutputStream();
    List<Throwable> ends = new ArrayList<>();
    new JsonFileLogs.Reader(
            JsonLogFiles.open(live(), maxFiles),
            request,
            new LogSink() {
              @Override
              public void output(byte[] bytes) {
                out.writeBytes(bytes);
              }

              @Override
              public void end(Throwable error) {
                ends.add(error);
              }
            })
        .run();
    assertThat(ends).hasSize(1);
    assertThat(ends.get(0)).isNull();
    return out.toString(StandardCharsets.UTF_8);
  }

  private static LogRequest all() {
    return new LogRequest(false, OptionalLong.empty(), Optional.empty(), false);
  }

  private static LogRequest tail(long n) {
    return new LogRequest(false, OptionalLong.of(n), Optional.empty(), false);
  }

  private static Optional<Instant> since(String t) {
    return Optional.of(Instant.parse(t));
  }

  /** A line as the engine writes it (its encoder escapes quotes, backslashes, controls, HTML). */
  static String entry(String content, String stream, String time) {
    StringBuilder s = new StringBuilder("{\"log\":\"");
    for (char c : content.toCharArray()) {
      switch (c) {
        case '"' -> s.append("\\\"");
        case '\\' -> s.append("\\\\");
        case '\n' -> s.append("\\n");
        case '\r' -> s.append("\\r");
        case '\t' -> s.append("\\t");
        case '<', '>', '&' -> s.append(String.format("\\u%04x", (int) c));
        default -> {
          if (c < 0x20) {
            s.append(String.format("\\u%04x", (int) c));
          } else {
            s.append(c);
          }
        }
      }
    }
    return s.append("\",\"stream\":\"")
        .append(stream)
        .append("\",\"time\":\"")
        .append(time)
        .append("\"}\n")
        .toString();
  }

  private static void write(Path path, String content) throws IOException {
    Files.writeString(path, content, StandardCharsets.UTF_8);
  }

  private static void gzip(Path path, String content) throws IOException {
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(path))) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    }
  }
}
