package io.jkubelet.agent.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.spdy.DefaultSpdyRstStreamFrame;
import io.netty.handler.codec.spdy.DefaultSpdySynStreamFrame;
import io.netty.handler.codec.spdy.SpdyRstStreamFrame;
import io.netty.handler.codec.spdy.SpdyStreamStatus;
import io.netty.handler.codec.spdy.SpdySynReplyFrame;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A client cannot grow one connection's streams without bound: past the limit it is refused. */
class SpdyConnectionLimitTest {
  private final List<Integer> accepted = new ArrayList<>();
  private final EmbeddedChannel channel =
      new EmbeddedChannel(
          new SpdyConnection(
              new SpdyConnection.Acceptor() {
                @Override
                public String accept(SpdyStream stream) {
                  accepted.add(stream.id());
                  return null;
                }

                @Override
                public void replied(SpdyStream stream) {}

                @Override
                public void clientGone() {}
              }));

  private Object open(int id) {
    channel.writeInbound(new DefaultSpdySynStreamFrame(id, 0, (byte) 0));
    return channel.readOutbound();
  }

  @Test
  void pastTheLimitOfOpenStreamsANewOneIsResetUntilOneCloses() {
    for (int i = 0; i < SpdyConnection.MAX_OPEN_STREAMS; i++) {
      assertThat(open(2 * i + 1)).isInstanceOf(SpdySynReplyFrame.class);
    }
    int next = 2 * SpdyConnection.MAX_OPEN_STREAMS + 1;
    Object refused = open(next);
    assertThat(refused).isInstanceOf(SpdyRstStreamFrame.class);
    assertThat(((SpdyRstStreamFrame) refused).status()).isEqualTo(SpdyStreamStatus.CANCEL);
    assertThat(accepted).hasSize(SpdyConnection.MAX_OPEN_STREAMS).doesNotContain(next);

    // The client resets one of its streams: there is room again.
    channel.writeInbound(new DefaultSpdyRstStreamFrame(1, SpdyStreamStatus.CANCEL));
    assertThat(open(next + 2)).isInstanceOf(SpdySynReplyFrame.class);
    channel.finishAndReleaseAll();
  }

  @Test
  void aClientThatKeepsOpeningStreamsPastARefusalGetsOneLineAtInfo() {
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    Logger log = (Logger) LoggerFactory.getLogger(SpdyConnection.class);
    logs.start();
    log.addAppender(logs);
    try {
      assertThat(open(1)).isInstanceOf(SpdySynReplyFrame.class);
      for (int i = 0; i < 50; i++) {
        assertThat(open(1)).as("stream id in use").isInstanceOf(SpdyRstStreamFrame.class);
      }
      assertThat(logs.list)
          .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
          .singleElement()
          .satisfies(e -> assertThat(e.getFormattedMessage()).contains("stream id in use"));
    } finally {
      log.detachAppender(logs);
      channel.finishAndReleaseAll();
    }
  }
}
