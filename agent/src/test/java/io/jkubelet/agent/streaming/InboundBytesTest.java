package io.jkubelet.agent.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** What a runtime's reader gets of the chunks the client sent, and when reading is paused. */
class InboundBytesTest {
  private final List<Boolean> pauses = new CopyOnWriteArrayList<>();
  private final InboundBytes in = new InboundBytes(pauses::add);

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void oneReadTakesWhatSeveralChunksHoldInTheirOrderUpToTheBuffersSize() throws Exception {
    in.offer(bytes("abc"));
    in.offer(bytes("defg"));
    in.offer(bytes("hij"));
    byte[] buf = new byte[6];
    assertThat(in.read(buf)).isEqualTo(6);
    assertThat(new String(buf, StandardCharsets.US_ASCII)).isEqualTo("abcdef");
    buf = new byte[32];
    int n = in.read(buf);
    assertThat(new String(buf, 0, n, StandardCharsets.US_ASCII)).isEqualTo("ghij");
    in.end();
    assertThat(in.read(buf)).isEqualTo(-1);
  }

  @Test
  void readingIsPausedAboveTheHighWaterMarkAndResumedBelowTheLowOne() throws Exception {
    byte[] chunk = new byte[64 * 1024];
    for (int i = 0; i < 5; i++) {
      in.offer(chunk);
    }
    assertThat(pauses).containsExactly(true); // 320 KiB waiting, above 256
    byte[] buf = new byte[128 * 1024];
    assertThat(in.read(buf)).isEqualTo(buf.length); // 192 KiB left: still paused
    assertThat(pauses).containsExactly(true);
    assertThat(in.read(buf)).isEqualTo(buf.length); // 64 KiB left: not below the low mark
    assertThat(pauses).containsExactly(true);
    assertThat(in.read(new byte[1])).isEqualTo(1);
    assertThat(pauses).containsExactly(true, false);
  }
}
