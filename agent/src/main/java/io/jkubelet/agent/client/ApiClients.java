package io.jkubelet.agent.client;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Makes the agent's clients of one API server: each on the one shared HTTP engine ({@link
 * ApiHttpClients}), with the node's client certificate where jkubelet manages it, and with the
 * caller's interceptor (request metrics). Each client has connections of its own, so that node
 * heartbeats, pod status and the pod watch never wait on each other's traffic. Thread-safe.
 */
public final class ApiClients {
  private final Config base;
  private final UnaryOperator<KubernetesClientBuilder> customize;

  ApiClients(
      Config base, Consumer<HttpClient.Builder> tls, Consumer<HttpClient.Builder> intercept) {
    this.base = base;
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
}
