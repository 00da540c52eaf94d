package io.jkubelet.agent.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StreamOptionsTest {

  @Test
  void onlyOneCountsAsOnAndATtyDropsStderr() {
    StreamOptions o =
        StreamOptions.fromQuery(
            Map.of(
                "input",
                List.of("1"),
                "output",
                List.of("true"),
                "error",
                List.of("1"),
                "tty",
                List.of("1")));
    assertThat(o).isEqualTo(new StreamOptions(true, false, false, true));
  }

  @Test
  void noStreamAtAllIsRefusedWithUpstreamsMessage() {
    assertThatThrownBy(() -> StreamOptions.fromQuery(Map.of("tty", List.of("1"))))
        .hasMessage("you must specify at least 1 of stdin, stdout, stderr");
  }

  @Test
  void theResizeStreamIsExpectedWithATtyFromV3On() {
    StreamOptions tty = new StreamOptions(true, true, false, true);
    assertThat(SpdyRemoteCommand.expectedStreams(tty, SpdyRemoteCommand.V4)).isEqualTo(4);
    assertThat(SpdyRemoteCommand.expectedStreams(tty, SpdyRemoteCommand.V2)).isEqualTo(3);
  }
}
