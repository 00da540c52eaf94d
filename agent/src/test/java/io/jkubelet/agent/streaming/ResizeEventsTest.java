package io.jkubelet.agent.streaming;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.runtime.TerminalSize;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResizeEventsTest {

  @Test
  void readsConcatenatedSizesUntilTheEnd() {
    List<TerminalSize> sizes = new ArrayList<>();
    ResizeEvents.read(
        new ByteArrayInputStream(
            "{\"Width\":80,\"Height\":24}{\"width\":120,\"height\":40}\n".getBytes(UTF_8)),
        sizes::add);
    assertThat(sizes).containsExactly(new TerminalSize(80, 24), new TerminalSize(120, 40));
  }

  @Test
  void stopsAtTheFirstMalformedValue() {
    List<TerminalSize> sizes = new ArrayList<>();
    ResizeEvents.read(
        new ByteArrayInputStream("{\"Width\":80,\"Height\":24}[1]{\"Width\":1}".getBytes(UTF_8)),
        sizes::add);
    assertThat(sizes).containsExactly(new TerminalSize(80, 24));
  }
}
