package io.jkubelet.agent.cli;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;

/**
 * The HTTP engines of the API clients. Left to itself, fabric8 gives every client a Vert.x of its
 * own, each with event loops, blocking pools and a blocked-thread checker: five clients cost 26
 * threads. Here the clients share two small engines: one for the node's heartbeats, so that they
 * never queue behind pod traffic on an event loop, and one for everything else. Each client keeps
 * its own connections. Their threads are daemons, as fabric8's own, so they never hold the process
 * at exit.
 */
final class ApiHttpClients {
  /** Event loops of the shared engine: the watch, status, event and mirror clients. */
  static final int EVENT_LOOPS = 2;

  private final HttpClient.Factory heartbeats;
  private final HttpClient.Factory others;

  private ApiHttpClients(HttpClient.Factory heartbeats, HttpClient.Factory others) {
    this.heartbeats = heartbeats;
    this.others = others;
  }

  /** The two engines (their event loops start with their first connection). */
  static ApiHttpClients create() {
    return new ApiHttpClients(
        new VertxHttpClientFactory(vertx(1)), new VertxHttpClientFactory(vertx(EVENT_LOOPS)));
  }

  /** The builder, set to use the heartbeat engine. */
  KubernetesClientBuilder heartbeats(KubernetesClientBuilder builder) {
    return builder.withHttpClientFactory(heartbeats);
  }

  /** The builder, set to use the shared engine. */
  KubernetesClientBuilder shared(KubernetesClientBuilder builder) {
    return builder.withHttpClientFactory(others);
  }

  private static Vertx vertx(int eventLoops) {
    VertxOptions options =
        new VertxOptions()
            .setEventLoopPoolSize(eventLoops)
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
