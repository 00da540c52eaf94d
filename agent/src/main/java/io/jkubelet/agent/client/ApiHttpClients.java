package io.jkubelet.agent.client;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.jkubelet.agent.util.ApiSerialization;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP engine of the API clients. Left to itself, fabric8 gives every client a Vert.x of its
 * own sized for a server: up to twice the cores in event loops and twenty threads in each blocking
 * pool, so that the five clients of a node took 28 threads; one small engine each still took 15.
 * Here all clients share one engine, made when the first client is built: two event loops, and one
 * thread in each blocking pool, started when first needed. The clients run their callbacks (watch
 * and informer events) on a shared cached pool of platform threads, never on the event loops, so
 * that no caller blocking on one of them holds up another client's traffic. The threads are
 * daemons, as fabric8's own, and the engine lives as long as the process: closing a client leaves
 * it running for the others. Their TLS is BoringSSL where it loads ({@link
 * NativeTlsClientFactory}).
 *
 * <p>An earlier release shared engines and saw secret watches stop after restarts under 110 pods;
 * those restarts also replaced running sandboxes (the {@code PodCache} defect, since fixed), and
 * the watches are retried by {@code objects.WatchPodObjects} when they fail.
 */
public final class ApiHttpClients {
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
          ApiHttpClients.TASK_KEEP_ALIVE_SECONDS,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          Thread.ofPlatform().name("api-client-task-", 0).daemon().factory());

  private static final long TASK_KEEP_ALIVE_SECONDS = 5;

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
            .setEventLoopPoolSize(2)
            .setWorkerPoolSize(1)
            .setInternalBlockingPoolSize(1)
            .setUseDaemonThread(true)
            // A blocked event loop is said every 10 s rather than every second, with its stack
            // only past a minute: on a guest under emulation the default printed a stack of 150
            // lines a second for two minutes into the journal, slowing the start further.
            .setBlockedThreadCheckInterval(10_000)
            .setWarningExceptionTime(60_000_000_000L)
            .setFileSystemOptions(
                new FileSystemOptions()
                    .setFileCachingEnabled(false)
                    .setClassPathResolvingEnabled(false));
    // As fabric8 does: the JDK's resolver (the host's resolv.conf and hosts file), not Netty's.
    String key = "vertx.disableDnsResolver";
    String before = System.getProperty(key);
    System.setProperty(key, "true");
    try {
      return Vertx.vertx(options);
    } finally {
      if (before == null) {
        System.clearProperty(key);
      } else {
        System.setProperty(key, before);
      }
    }
  }
}
