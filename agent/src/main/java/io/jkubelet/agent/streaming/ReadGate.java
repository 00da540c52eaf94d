package io.jkubelet.agent.streaming;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;

/**
 * Drops a request to read from the connection while its auto-read is off, so that an {@link
 * InboundBytes} that paused the connection does pause it. Sits just before Netty's SPDY frame
 * codec.
 *
 * <p>NOTE: the SPDY codec fires the frames it decodes itself rather than through its decoder base
 * class, which therefore believes that a batch of bytes decoded to nothing and asks for another
 * read after every batch when auto-read is off (as a decoder with half a frame must). The
 * connection then never paused: a {@code kubectl cp} of 50 MB buffered up to 8 MB of the file in
 * the agent's heap, and a slower container would have let it take the whole file. Turning auto-read
 * back on asks for a read of its own, which passes. The TLS handler below still reads the rest of a
 * record it holds half of.
 *
 * <p>Stateless; one instance serves every connection.
 */
@ChannelHandler.Sharable
final class ReadGate extends ChannelOutboundHandlerAdapter {
  static final ReadGate INSTANCE = new ReadGate();

  private ReadGate() {}

  @Override
  public void read(ChannelHandlerContext ctx) {
    if (ctx.channel().config().isAutoRead()) {
      ctx.read();
    }
  }
}
