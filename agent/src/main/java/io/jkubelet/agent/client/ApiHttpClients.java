package io.jkubelet.agent.client;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.jkubelet.agent.util.ApiSerialization;
import io.jkubelet.agent.util.NettyLoops;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import io.vertx.core.impl.VertxBuilder;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.impl.transports.JDKTransport;
import io.vertx.core.spi.transport.Transport;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP engine of the API clients. Left to itself, fabric8 gives every client a Vert.x of its
 * own sized for a server: up to twice the cores in event loops and twenty threads in each blocking
 * pool, so that the five clients of a node took 28 threads; one small engine each still took 15.
 * Here all clients share one engine, made when the first client is built, and it has no event loops
 * of its own: it runs on the process's Netty loops ({@link NettyLoops}), beside the kubelet API's
 * servers and the probes, and its two blocking pools have one thread each, started when first
 * needed and ended when idle. The clients run their callbacks (watch and informer events) on a
 * shared cached pool of platform threads, never on the event loops, so that no caller blocking on
 * one of them holds up another client's traffic. The threads are daemons, as fabric8's own, and the
 * engine lives as long as the process: closing a client leaves it running for the others. Their TLS
 * is BoringSSL where it loads ({@link NativeTlsClientFactory}).
 *
 * <p>An earlier release shared engines and saw secret watches stop after restarts under 110 pods;
 * those restarts also replaced running sandboxes (the {@code PodCache} defect, since fixed), and
 * the watches are retried by {@code objects.WatchPodObjects} when they fail.
 */
public final class ApiHttpClients {
  /** How long an idle thread of the callbacks' pool or of Vert.x's blocking pools lives. */
  private static final long TASK_KEEP_ALIVE_SECONDS = 5;

  /**
   * Where the clients run their callbacks (each watch event's decoding and the informers'
   * handlers): one cached pool of platform threads for every client, instead of fabric8's pool per
   * client; a thread idle for {@value #TASK_KEEP_ALIVE_SECONDS} s ends, so an idle node keeps none.
   * NOTE: not virtual threads, which these were: a virtual thread started from a Vert.x event loop
   * (a platform thread) waited for a carrier while the node's other virtual threads ran, and each
   * watch event took one such hop. Under churn on two cores, the informer of a hollow node saw a
   * pod 0.5 to 1.6 s after a {@code kubectl} watch beside it (p50), and 0.01 s on platform threads
   * (docs/performance.md, bench-scale.sh). Never shut down.
   */
  private static final Executor TASKS =
      new ThreadPoolExecutor(
          0,
          Integer.MAX_VALUE,
          TASK_KEEP_ALIVE_SECONDS,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          Thread.ofPlatform().name("api-client-task-", 0).daemon().factory());

  private ApiHttpClients() {}

  /**
   * The builder, set to use the shared engine with native TLS, virtual task threads and the
   * process's one JSON mapping ({@link ApiSerialization}).
   */
  public static KubernetesClientBuilder small(KubernetesClientBuilder builder) {
    return builder
        .withHttpClientFactory(new NativeTlsClientFactory(Engine.VERTX))
        .withTaskExecutor(TASKS)
        .withKubernetesSerialization(ApiSerialization.SHARED);
  }

  /** Holds the engine, made on first use. */
  private static final class Engine {
    static final Vertx VERTX = vertx();
  }

  private static Vertx vertx() {
    VertxOptions options =
        new VertxOptions()
            .setEventLoopPoolSize(NettyLoops.threads())
            .setWorkerPoolSize(1)
            .setInternalBlockingPoolSize(1)
            .setUseDaemonThread(true)
            .setFileSystemOptions(
                new FileSystemOptions()
                    .setFileCachingEnabled(false)
                    .setClassPathResolvingEnabled(false));
    // As fabric8 does: the JDK's resolver (the host's resolv.conf and hosts file), not Netty's.
    String key = "vertx.disableDnsResolver";
    String before = System.getProperty(key);
    System.setProperty(key, "true");
    try {
      // NOTE: VertxBuilder is Vert.x's own (io.vertx.core.impl), the one way in 4.x to give it
      // event loops and pools it does not make itself.
      Vertx vertx =
          new VertxBuilder(options)
              .findTransport(new SharedLoops())
              .executorServiceFactory(ApiHttpClients::idleEndingPool)
              .init()
              .vertx();
      // Its blocked-thread checker (a timer thread) watches Vert.x's own threads: not the Netty
      // loops, and its blocking pools are there to block.
      ((VertxInternal) vertx).blockedThreadChecker().close();
      return vertx;
    } finally {
      if (before == null) {
        System.clearProperty(key);
      } else {
        System.setProperty(key, before);
      }
    }
  }

  /**
   * A Vert.x blocking pool whose threads end after {@value #TASK_KEEP_ALIVE_SECONDS} s idle, where
   * Vert.x's own keeps each thread it ever started.
   */
  private static ExecutorService idleEndingPool(
      ThreadFactory threads, Integer concurrency, Integer maxConcurrency) {
    int size = Math.max(1, maxConcurrency);
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            size,
            size,
            TASK_KEEP_ALIVE_SECONDS,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            threads);
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * Vert.x's JDK transport (NIO) on the process's Netty loops ({@link NettyLoops}), which the
   * kubelet API's servers and the probes already run on, instead of event loops of its own. The
   * loops are never shut down: the engine lives as long as the process.
   */
  private static final class SharedLoops implements Transport {
    private final Transport jdk = JDKTransport.INSTANCE;

    @Override
    public EventLoopGroup eventLoopGroup(
        int type, int threads, ThreadFactory factory, int ioRatio) {
      return NettyLoops.shared();
    }

    @Override
    public DatagramChannel datagramChannel() {
      return jdk.datagramChannel();
    }

    @Override
    public DatagramChannel datagramChannel(InternetProtocolFamily family) {
      return jdk.datagramChannel(family);
    }

    @Override
    public ChannelFactory<? extends Channel> channelFactory(boolean domainSocket) {
      return jdk.channelFactory(domainSocket);
    }

    @Override
    public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
      return jdk.serverChannelFactory(domainSocket);
    }
  }
}
