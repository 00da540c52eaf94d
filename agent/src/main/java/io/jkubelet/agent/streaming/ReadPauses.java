package io.jkubelet.agent.streaming;

import io.netty.channel.Channel;
import java.util.function.Consumer;

/**
 * The pause of one connection's reading, shared by all its inputs ({@link InboundBytes}: a SPDY
 * connection's streams, a WebSocket session's channels): each input pauses and resumes in pairs,
 * and the connection reads again only once every input that paused it has resumed. With a switch
 * per input, an input that drained its buffer turned reading on again while another, still full,
 * had it off; that one then buffered whatever came, without bound (two uploads at once through one
 * {@code kubectl port-forward}, say).
 *
 * <p>Thread-safe: an input calls it under its own lock, and nothing here calls back into an input.
 */
final class ReadPauses implements Consumer<Boolean> {
  private final Channel channel;
  private int pausing;

  ReadPauses(Channel channel) {
    this.channel = channel;
  }

  /** One input's pause ({@code true}) or resume ({@code false}). */
  @Override
  public synchronized void accept(Boolean pause) {
    if (pause) {
      if (pausing++ == 0) {
        channel.config().setAutoRead(false);
      }
    } else if (pausing > 0 && --pausing == 0) {
      channel.config().setAutoRead(true);
    }
  }
}
