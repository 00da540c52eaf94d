package io.jkubelet.agent.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.util.FakeClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AtomicWriterTest {
  @TempDir Path dir;
  private final FakeClock clock = new FakeClock();

  private AtomicWriter writer() {
    return new AtomicWriter(dir, clock, "test");
  }

  private static FileProjection file(String s, int mode) {
    return new FileProjection(s.getBytes(StandardCharsets.UTF_8), mode);
  }

  private String read(String p) throws Exception {
    return Files.readString(dir.resolve(p));
  }

  @Test
  void writesATimestampedDirADataLinkAndUserVisibleLinks() throws Exception {
    assertThat(writer().write(Map.of("a", file("1", 0644), "sub/b", file("2", 0400)))).isTrue();

    Path data = Files.readSymbolicLink(dir.resolve("..data"));
    assertThat(data.toString()).matches("\\.\\.\\d{4}_\\d\\d_\\d\\d_\\d\\d_\\d\\d_\\d\\d\\.\\d+");
    assertThat(Files.readSymbolicLink(dir.resolve("a"))).isEqualTo(Path.of("..data/a"));
    assertThat(Files.readSymbolicLink(dir.resolve("sub"))).isEqualTo(Path.of("..data/sub"));
    assertThat(read("a")).isEqualTo("1");
    assertThat(read("sub/b")).isEqualTo("2");
    assertThat(mode(dir.resolve(data).resolve("a"))).isEqualTo(0644);
    assertThat(mode(dir.resolve(data).resolve("sub/b"))).isEqualTo(0400);
    assertThat(mode(dir.resolve(data))).isEqualTo(0755);
  }

  @Test
  void theSamePayloadWritesNothing() throws Exception {
    writer().write(Map.of("a", file("1", 0644)));
    Path before = Files.readSymbolicLink(dir.resolve("..data"));
    clock.step(Duration.ofSeconds(5));

    assertThat(writer().write(Map.of("a", file("1", 0644)))).isFalse();
    assertThat(Files.readSymbolicLink(dir.resolve("..data"))).isEqualTo(before);
  }

  @Test
  void anUpdateSwapsTheDataLinkAndRemovesOldPathsAndTheOldDir() throws Exception {
    writer().write(Map.of("a", file("1", 0644), "gone", file("x", 0644)));
    Path before = Files.readSymbolicLink(dir.resolve("..data"));
    clock.step(Duration.ofSeconds(5));

    assertThat(writer().write(Map.of("a", file("2", 0644), "new", file("n", 0644)))).isTrue();

    assertThat(Files.readSymbolicLink(dir.resolve("..data"))).isNotEqualTo(before);
    assertThat(read("a")).isEqualTo("2");
    assertThat(read("new")).isEqualTo("n");
    assertThat(Files.exists(dir.resolve("gone"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(Files.exists(dir.resolve(before))).isFalse();
    assertThat(Files.exists(dir.resolve("..data_tmp"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    try (Stream<Path> s = Files.list(dir)) {
      assertThat(s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("..2")))
          .hasSize(1);
    }
  }

  @Test
  void aRemovedPathAloneIsAnUpdate() throws Exception {
    writer().write(Map.of("a", file("1", 0644), "b", file("2", 0644)));

    assertThat(writer().write(Map.of("a", file("1", 0644)))).isTrue();
    assertThat(Files.exists(dir.resolve("b"), LinkOption.NOFOLLOW_LINKS)).isFalse();
  }

  static Stream<Arguments> badPaths() {
    return Stream.of(
        Arguments.of("absolute", "/etc/passwd", "invalid path: must be relative path: /etc/passwd"),
        Arguments.of("dot-dot element", "a/../b", "invalid path: must not contain '..': a/../b"),
        Arguments.of("leading dot-dot", "..data", "invalid path: must not start with '..': ..data"),
        Arguments.of("empty", "", "invalid path: must not be empty: \"\""),
        Arguments.of(
            "long file name",
            "x".repeat(256),
            "invalid path: filenames must be less than or equal to 255 characters"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badPaths")
  void refusesPaths(String name, String path, String message) {
    assertThatThrownBy(() -> writer().write(Map.of(path, file("x", 0644))))
        .isInstanceOf(AtomicWriter.InvalidPath.class)
        .hasMessage(message);
    assertThat(Files.exists(dir.resolve("..data"), LinkOption.NOFOLLOW_LINKS)).isFalse();
  }

  @Test
  void dotsInsideANameAreFine() throws Exception {
    writer().write(Map.of("a..b", file("1", 0644), ".hidden", file("2", 0644)));
    assertThat(read("a..b")).isEqualTo("1");
    assertThat(read(".hidden")).isEqualTo("2");
  }

  static int mode(Path p) throws Exception {
    return (int) Files.getAttribute(p, "unix:mode") & 07777;
  }
}
