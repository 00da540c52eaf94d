package io.jkubelet.agent.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/** Two inputs of one connection: reading resumes only once neither of them is full. */
class ReadPausesTest {
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final ReadPauses pauses = new ReadPauses(channel);

  /** Ends {@code in} and reads all it holds, as a runtime's reader at the end of its stdin. */
  private static void drain(InboundBytes in) throws Exception {
    in.end();
    byte[] buf = new byte[64 * 1024];
    while (in.read(buf) >= 0) {
      // what the reader does with it does not matter here
    }
  }

  @Test
  void readingStaysPausedUntilTheLastFullInputHasDrained() throws Exception {
    InboundBytes first = new InboundBytes(pauses);
    InboundBytes second = new InboundBytes(pauses);
    first.offer(new byte[InboundBytes.HIGH_WATER + 1]);
    second.offer(new byte[InboundBytes.HIGH_WATER + 1]);
    assertThat(channel.config().isAutoRead()).isFalse();

    drain(second);
    assertThat(channel.config().isAutoRead()).as("reading while the first input is full").isFalse();

    drain(first);
    assertThat(channel.config().isAutoRead()).isTrue();
  }

  @Test
  void anInputThatNeverPausedDoesNotResumeReading() throws Exception {
    InboundBytes full = new InboundBytes(pauses);
    InboundBytes quiet = new InboundBytes(pauses);
    full.offer(new byte[InboundBytes.HIGH_WATER + 1]);
    quiet.offer(new byte[16]);

    drain(quiet);
    quiet.discard();

    assertThat(channel.config().isAutoRead()).isFalse();
    drain(full);
    assertThat(channel.config().isAutoRead()).isTrue();
  }
}
