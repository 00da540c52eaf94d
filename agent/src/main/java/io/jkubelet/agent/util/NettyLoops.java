package io.jkubelet.agent.util;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The process's Netty event loops, shared by everything in it that speaks Netty: the kubelet API's
 * servers, the probes' HTTP client and the API clients' engine ({@code client.ApiHttpClients}; and,
 * in {@code jkubelet hollow}, every node's), as {@link SharedSchedulers}' timer is shared by every
 * scheduler. One daemon thread, {@code netty-io-1} (a loop waits on its selector, it never spins;
 * what a node agent moves, API traffic and streams of some tens of MB a second at most, one loop
 * moves with room to spare), started when first asked for and never shut down: each user closes its
 * own channels and leaves the loop to the others. What runs on it must not block. Thread-safe.
 */
public final class NettyLoops {
  /** The number of loops of an agent's process. */
  public static final int THREADS = 1;

  private static volatile EventLoopGroup shared;
  private static int threads = THREADS;

  /**
   * Sets the number of loops, before anything asks for them: {@code jkubelet hollow} runs many
   * nodes in one process, and gives them a loop per core, as that many processes would have more.
   *
   * @throws IllegalStateException when the loops were made already with another number
   */
  public static synchronized void use(int n) {
    if (shared != null && n != threads) {
      throw new IllegalStateException("the Netty loops are made already, " + threads + " of them");
    }
    threads = Math.max(1, n);
  }

  /** The number of loops the process has or will have. */
  public static synchronized int threads() {
    return threads;
  }

  private NettyLoops() {}

  /** The shared loops, made on first use. */
  public static EventLoopGroup shared() {
    EventLoopGroup g = shared;
    if (g == null) {
      synchronized (NettyLoops.class) {
        g = shared;
        if (g == null) {
          g = new NioEventLoopGroup(threads, new DefaultThreadFactory("netty-io", true));
          shared = g;
        }
      }
    }
    return g;
  }
}
