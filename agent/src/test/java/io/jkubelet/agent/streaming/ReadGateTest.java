package io.jkubelet.agent.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.spdy.SpdyFrameCodec;
import io.netty.handler.codec.spdy.SpdyFrameEncoder;
import io.netty.handler.codec.spdy.SpdyVersion;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A paused SPDY connection reads nothing more until it is resumed. */
class ReadGateTest {
  private final AtomicInteger reads = new AtomicInteger();

  private EmbeddedChannel connection(boolean gated) {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.pipeline()
        .addLast(
            new ChannelOutboundHandlerAdapter() {
              @Override
              public void read(ChannelHandlerContext ctx) {
                reads.incrementAndGet(); // what reaches the socket
                ctx.read();
              }
            });
    if (gated) {
      ch.pipeline().addLast(ReadGate.INSTANCE);
    }
    ch.pipeline().addLast(new SpdyFrameCodec(SpdyVersion.SPDY_3_1));
    return ch;
  }

  private static ByteBuf dataFrame() {
    return new SpdyFrameEncoder(SpdyVersion.SPDY_3_1)
        .encodeDataFrame(ByteBufAllocator.DEFAULT, 1, false, Unpooled.wrappedBuffer(new byte[100]));
  }

  /** The reads that reach the socket while the connection is paused and a frame comes in. */
  private int readsWhilePaused(EmbeddedChannel ch) {
    ch.config().setAutoRead(false);
    reads.set(0);
    ch.writeInbound(dataFrame());
    return reads.get();
  }

  @Test
  void whilePausedTheCodecsRequestsToReadGoNoFurther() {
    EmbeddedChannel ch = connection(true);
    assertThat(readsWhilePaused(ch)).isZero();
    ch.config().setAutoRead(true);
    assertThat(reads.get()).isPositive();
    ch.finishAndReleaseAll();
  }

  @Test
  void withoutTheGateTheCodecReadsOnWhilePaused() {
    EmbeddedChannel ch = connection(false);
    assertThat(readsWhilePaused(ch)).isPositive(); // why the gate is there
    ch.finishAndReleaseAll();
  }
}
