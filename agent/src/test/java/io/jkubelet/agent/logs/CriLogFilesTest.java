package io.jkubelet.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.util.FakeClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
  void fragmentsWaitForTheirLineAndAPauseWritesThemAsPartial() throws Exception {
    Path f = dir.resolve("0.log");
    Instant t = Instant.parse("2026-03-01T12:00:00Z");
    try (RotatingLogWriter w = new RotatingLogWriter(f, 1 << 20, 5, new FakeClock())) {
      w.write(t, "stdout", "one\ntw".getBytes(StandardCharsets.UTF_8));
      w.write(t, "stdout", "o\nthr".getBytes(StandardCharsets.UTF_8));
      w.flushPartial(t, "stdout");
    }
    assertThat(Files.readAllLines(f))
        .containsExactly(
            "2026-03-01T12:00:00.000000000Z stdout F one",
            "2026-03-01T12:00:00.000000000Z stdout F two",
            "2026-03-01T12:00:00.000000000Z stdout P thr");
  }

  @Test
  void aFullFileIsRotatedAndOnlyMaxFilesRemain() throws Exception {
    Path f = dir.resolve("app/0.log");
    FakeClock clock = new FakeClock();
    Instant t = Instant.parse("2026-03-01T12:00:00Z");
    try (RotatingLogWriter w = new RotatingLogWriter(f, 200, 3, clock)) {
      for (int i = 0; i < 40; i++) {
        w.write(t, "stdout", ("line " + i + "\n").getBytes(StandardCharsets.UTF_8));
        clock.step(Duration.ofSeconds(1));
      }
      assertThat(w.rotated()).hasSize(2);
    }
    StringBuilder all = new StringBuilder();
    try (var files = Files.list(f.getParent())) {
      var list = files.sorted().toList();
      assertThat(list).as("the live file and two rotated ones").hasSize(3).contains(f);
      for (Path p : list) {
        all.append(Files.readString(p));
      }
    }
    assertThat(all.toString()).contains("F line 39\n").doesNotContain("F line 0\n");
  }
}
