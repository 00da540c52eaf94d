package io.jkubelet.agent.client;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.jkubelet.agent.util.Time;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Makes the agent's clients of one API server: each on the one shared HTTP engine ({@link
 * ApiHttpClients}), with the node's client certificate where jkubelet manages it, and with the
 * caller's interceptor (request metrics). Each client has connections of its own, so that node
 * heartbeats, pod status and the pod watch never wait on each other's traffic. The clients of a
 * {@link #limited} view share its client-side rate limit, as upstream's kubelet's clients share
 * {@code kubeAPIQPS}; the others (the heartbeat's, as upstream's) have none. Thread-safe.
 */
public final class ApiClients {
  private final Config base;
  private final Consumer<HttpClient.Builder> tls;
  private final Consumer<HttpClient.Builder> intercept;
  private final UnaryOperator<KubernetesClientBuilder> customize;

  ApiClients(
      Config base, Consumer<HttpClient.Builder> tls, Consumer<HttpClient.Builder> intercept) {
    this.base = base;
    this.tls = tls;
    this.intercept = intercept;
    this.customize =
        b ->
            ApiHttpClients.small(b)
                .withHttpClientBuilderConsumer(
                    h -> {
                      intercept.accept(h);
                      tls.accept(h);
                    });
  }

  /** The kubeconfig's configuration, without a managed client certificate. */
  public Config base() {
    return base;
  }

  /** What each client's builder gets: the engine, the identity, the interceptor. */
  public UnaryOperator<KubernetesClientBuilder> customizer() {
    return customize;
  }

  /** A new client with connections of its own and few retries: callers retry on their terms. */
  public KubernetesClient newClient() {
    Config c = new ConfigBuilder(base).withRequestRetryBackoffLimit(1).build();
    return customize.apply(new KubernetesClientBuilder().withConfig(c)).build();
  }

  /**
   * The same clients, whose requests all spend tokens of one new rate limit ({@link RateLimiter}),
   * waiting on the caller's thread: upstream's kubelet gives its main client {@code kubeAPIQPS} and
   * {@code kubeAPIBurst} this way. Without a limit, these clients.
   *
   * @param name the group, for the log
   */
  public ApiClients limited(String name, RateLimit limit, Time time) {
    if (!limit.limited()) {
      return this;
    }
    RateLimiter limiter = RateLimiter.of(name, limit, time.clock(), time.sleeper());
    return new ApiClients(
        base,
        tls,
        h -> {
          intercept.accept(h);
          h.addOrReplaceInterceptor(RateLimiter.NAME, limiter);
        });
  }
}
