package io.jkubelet.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.util.FakeClock;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CRI line format, the paths upstream uses, and rotation by size and count. */
class CriLogFilesTest {
  @TempDir Path dir;

  @Test
  void linesAreWrittenWithNineFractionDigitsAndReadBack() {
    Instant t = Instant.parse("2026-03-01T12:00:00.120Z");
    String line =
        new String(
            CriFormat.format(t, "stdout", false, "hello world".getBytes(StandardCharsets.UTF_8)),
            StandardCharsets.UTF_8);
    assertThat(line).isEqualTo("2026-03-01T12:00:00.120000000Z stdout F hello world\n");
    CriFormat.Line parsed = CriFormat.parse(line.strip()).orElseThrow();
    assertThat(parsed.time()).isEqualTo(t);
    assertThat(parsed.stream()).isEqualTo("stdout");
    assertThat(parsed.partial()).isFalse();
    assertThat(new String(parsed.content(), StandardCharsets.UTF_8)).isEqualTo("hello world");
    assertThat(CriFormat.parse("2026-03-01T12:00:00.1Z stderr P a b").orElseThrow().partial())
        .isTrue();
    assertThat(CriFormat.parse("not a cri line")).isEmpty();
    assertThat(CriFormat.parse("2026-03-01T12:00:00Z stdin F x")).isEmpty();
  }

  @Test
  void pathsAreUpstreams() {
    PodLogPaths p = new PodLogPaths(dir.resolve("pods"), dir.resolve("containers"));
    assertThat(p.containerLog("ns", "web", "u1", "app", 2))
        .isEqualTo(dir.resolve("pods/ns_web_u1/app/2.log"));
    assertThat(p.link("ns", "web", "app", "abc"))
        .isEqualTo(dir.resolve("containers/web_ns_app-abc.log"));
    assertThat(PodLogPaths.DEFAULT.podLogsDir()).isEqualTo(Path.of("/var/log/pods"));
  }

  @Test
  void eachEntryIsOneLineFullOrPartial() throws Exception {
    Path f = dir.resolve("0.log");
    Instant t = Instant.parse("2026-03-01T12:00:00Z");
    try (RotatingLogWriter w = new RotatingLogWriter(f, 1 << 20, 5, new FakeClock())) {
      w.write(t, "stdout", false, "one".getBytes(StandardCharsets.UTF_8));
      w.write(t, "stderr", true, "tw".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(Files.readAllLines(f))
        .containsExactly(
            "2026-03-01T12:00:00.000000000Z stdout F one",
            "2026-03-01T12:00:00.000000000Z stderr P tw");
  }

  @Test
  void aFullFileIsRotatedAsUpstreamDoes() throws Exception {
    Path f = dir.resolve("app/0.log");
    FakeClock clock = new FakeClock(Instant.parse("2026-03-01T12:00:00Z"));
    try (RotatingLogWriter w = new RotatingLogWriter(f, 200, 4, clock)) {
      for (int i = 0; i < 40; i++) {
        w.write(clock.instant(), "stdout", false, ("line " + i).getBytes(StandardCharsets.UTF_8));
        clock.step(Duration.ofMillis(300));
      }
    }
    List<String> names;
    try (var files = Files.list(f.getParent())) {
      names = files.map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertThat(names)
        .as("maxFiles: the live file, the newest rotated one plain, older ones gzipped")
        .hasSize(4)
        .contains("0.log");
    names =
        java.util.stream.Stream.concat(names.stream().skip(1), names.stream().limit(1)).toList();
    assertThat(names.subList(0, 2)).allMatch(n -> n.matches("0\\.log\\.2026030\\d-\\d{6}\\.gz"));
    assertThat(names.get(2)).matches("0\\.log\\.2026030\\d-\\d{6}");
    StringBuilder all = new StringBuilder();
    for (String n : names) {
      Path p = f.resolveSibling(n);
      try (InputStream in =
          n.endsWith(".gz")
              ? new GZIPInputStream(Files.newInputStream(p))
              : Files.newInputStream(p)) {
        all.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    assertThat(all.toString()).contains("F line 39\n").doesNotContain("F line 0\n");
    List<Integer> numbers =
        all.toString()
            .lines()
            .map(l -> Integer.parseInt(l.substring(l.lastIndexOf(' ') + 1)))
            .toList();
    assertThat(numbers).as("the files in name order hold the lines in order").isSorted();
  }

  @Test
  void leftoversOfAFailedRotationAreRemoved() throws Exception {
    Path f = dir.resolve("app/0.log");
    Files.createDirectories(f.getParent());
    Files.writeString(f.resolveSibling("0.log.20260301-100000.tmp"), "x");
    Files.writeString(f.resolveSibling("0.log.20260301-100000"), "x");
    Files.writeString(f.resolveSibling("0.log.20260301-100000.gz"), "x");
    FakeClock clock = new FakeClock(Instant.parse("2026-03-01T12:00:00Z"));
    try (RotatingLogWriter w = new RotatingLogWriter(f, 10, 5, clock)) {
      w.write(clock.instant(), "stdout", false, "a line".getBytes(StandardCharsets.UTF_8));
    }
    try (var files = Files.list(f.getParent())) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("0.log", "0.log.20260301-100000.gz", "0.log.20260301-120000");
    }
  }

  @Test
  void theResumePointIsTheLastTimeAndHowManyLinesHaveIt() throws Exception {
    Path f = dir.resolve("app/0.log");
    Instant t1 = Instant.parse("2026-03-01T12:00:00.5Z");
    Instant t2 = Instant.parse("2026-03-01T12:00:01Z");
    assertThat(ResumePoint.of(f)).isEmpty();
    try (RotatingLogWriter w = new RotatingLogWriter(f, 1 << 20, 5, new FakeClock())) {
      w.write(t1, "stdout", false, "a".getBytes(StandardCharsets.UTF_8));
      w.write(t2, "stdout", false, "b".getBytes(StandardCharsets.UTF_8));
      w.write(t2, "stderr", true, "c".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(ResumePoint.of(f)).contains(new ResumePoint(t2, 2));
    Files.move(f, f.resolveSibling("0.log.20260301-120001"));
    Files.createFile(f);
    assertThat(ResumePoint.of(f))
        .as("just rotated: the newest rotated file")
        .contains(new ResumePoint(t2, 2));
  }

  @Test
  void maxSizeIsAQuantity() {
    assertThat(RotatingLogWriter.parseMaxSize("10Mi")).isEqualTo(10L << 20);
    assertThat(RotatingLogWriter.parseMaxSize("500")).isEqualTo(500);
    assertThat(RotatingLogWriter.parseMaxSize("1k")).isEqualTo(1000);
    assertThatThrownBy(() -> RotatingLogWriter.parseMaxSize("ten megs"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("containerLogMaxSize");
  }
}
