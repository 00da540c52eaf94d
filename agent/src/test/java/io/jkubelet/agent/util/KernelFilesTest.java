package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelFilesTest {
  @TempDir Path dir;

  private Path file(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }

  @Test
  void aLimitIsEmptyForV2sMaxAndV1sPageRoundedLongMax() throws IOException {
    assertThat(KernelFiles.limit(file("memory.max", "max\n"))).isEmpty();
    assertThat(KernelFiles.limit(file("memory.limit_in_bytes", "9223372036854771712\n"))).isEmpty();
    assertThat(KernelFiles.limit(file("v2", "33554432\n"))).isEqualTo(Optional.of(33554432L));
    assertThat(KernelFiles.limit(file("v1", "67108864\n"))).isEqualTo(Optional.of(67108864L));
  }

  @Test
  void aFileThatHoldsNoNumberIsAnIoErrorThatNamesIt() throws IOException {
    Path bad = file("memory.current", "lots\n");
    assertThatThrownBy(() -> KernelFiles.number(bad))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(bad.toString());
    assertThatThrownBy(() -> KernelFiles.limit(bad)).isInstanceOf(IOException.class);
    Path empty = file("empty", "");
    assertThatThrownBy(() -> KernelFiles.line(empty)).hasMessageContaining("is empty");
  }

  @Test
  void anOptionalNumberIsMinusOneWhenTheKernelHasNoSuchFile() throws IOException {
    assertThat(KernelFiles.optionalNumber(dir.resolve("memory.peak"))).isEqualTo(-1);
    assertThat(KernelFiles.optionalNumber(file("memory.peak", "4096\n"))).isEqualTo(4096);
  }

  @Test
  void flatKeyedLinesAreReadAndThoseWithoutANumberSkipped() throws IOException {
    Path events = file("memory.events", "low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\nodd x\nnokey\n");
    assertThat(KernelFiles.keyValues(events))
        .isEqualTo(Map.of("low", 0L, "high", 0L, "max", 12L, "oom", 3L, "oom_kill", 2L));
  }
}
