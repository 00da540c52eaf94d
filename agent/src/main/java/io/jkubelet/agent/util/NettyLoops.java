package io.jkubelet.agent.util;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The process's Netty event loops, shared by everything in it that speaks Netty: the kubelet API's
 * servers, the probes' HTTP client and the API clients' engine ({@code client.ApiHttpClients}; and,
 * in {@code jkubelet hollow}, every node's), as {@link SharedSchedulers}' timer is shared by every
 * scheduler. Two daemon threads, {@code netty-io-N} (one per core of this project's 2-core
 * machines; a loop waits on its selector, it never spins), started when first asked for and never
 * shut down: each user closes its own channels and leaves the loops to the others. What runs on
 * them must not block. Thread-safe.
 */
public final class NettyLoops {
  /** The number of loops. */
  public static final int THREADS = 2;

  private static volatile EventLoopGroup shared;

  private NettyLoops() {}

  /** The shared loops, made on first use. */
  public static EventLoopGroup shared() {
    EventLoopGroup g = shared;
    if (g == null) {
      synchronized (NettyLoops.class) {
        g = shared;
        if (g == null) {
          g = new NioEventLoopGroup(THREADS, new DefaultThreadFactory("netty-io", true));
          shared = g;
        }
      }
    }
    return g;
  }
}
