package io.jkubelet.agent.cli;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/**
 * The HTTP engines of the API clients. Left to itself, fabric8 gives every client a Vert.x of its
 * own sized for a server: up to twice the cores in event loops and twenty threads in each blocking
 * pool, so that the five clients of a node took 28 threads. Here each client still gets an engine
 * of its own, so that no client's traffic (or a caller blocking on one of its callbacks) can hold
 * up another's, but a small one: one event loop and one thread in each blocking pool, started when
 * first needed. The threads are daemons, as fabric8's own, and the engines live as long as the
 * process (NOTE: closing a client leaves its engine's idle threads; the agent never closes its
 * clients before it exits).
 *
 * <p>The last release's shared engines (two for all clients) saw secret watches stop after a
 * restart under 110 pods; one engine per client keeps the isolation the defaults had.
 */
final class ApiHttpClients {
  /**
   * Where the clients run their callbacks (watch and informer events): a virtual thread per task,
   * instead of fabric8's cached pool of platform threads per client. Never shut down.
   */
  private static final Executor TASKS =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("api-client-task-", 0).factory());

  private ApiHttpClients() {}

  /** The builder, set to give its client a small engine of its own and virtual task threads. */
  static KubernetesClientBuilder small(KubernetesClientBuilder builder) {
    return builder
        .withHttpClientFactory(new VertxHttpClientFactory(vertx()))
        .withTaskExecutor(TASKS);
  }

  private static Vertx vertx() {
    VertxOptions options =
        new VertxOptions()
            .setEventLoopPoolSize(1)
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
