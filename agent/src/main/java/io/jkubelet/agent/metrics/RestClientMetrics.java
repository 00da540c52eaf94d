package io.jkubelet.agent.metrics;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Counts the API requests of a fabric8 client as client-go's REST client does: {@code
 * rest_client_requests_total} by {@code code} (the HTTP status, or {@code <error>} when no answer
 * came), {@code method} and {@code host} (host:port of the server). Installed as an HTTP client
 * interceptor, so no caller counts anything.
 *
 * <p>NOTE: fabric8 tells interceptors of a request that got no answer only when it considers a
 * retry, so such a request counts as {@code <error>} on a client with a retry budget (as {@code
 * ClusterMode}'s clients have: one retry), and the last try of a budget is not counted.
 *
 * <p>Thread-safe.
 */
public final class RestClientMetrics implements Interceptor {
  /** The interceptor's name in the client's chain. */
  public static final String NAME = "jkubelet-metrics";

  private final KubeletMetrics metrics;

  public RestClientMetrics(KubeletMetrics metrics) {
    this.metrics = metrics;
  }

  /**
   * Installs the interceptor on a client builder; returns the builder. NOTE: this takes the
   * builder's one HTTP client consumer; to add settings of its own, a caller uses {@link
   * #installOn} in its consumer instead.
   */
  public KubernetesClientBuilder install(KubernetesClientBuilder builder) {
    return builder.withHttpClientBuilderConsumer(this::installOn);
  }

  /** Installs the interceptor on an HTTP client builder. */
  public void installOn(io.fabric8.kubernetes.client.http.HttpClient.Builder builder) {
    builder.addOrReplaceInterceptor(NAME, this);
  }

  @Override
  public void after(
      HttpRequest request,
      HttpResponse<?> response,
      AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    count(Integer.toString(response.code()), request);
  }

  @Override
  public void afterConnectionFailure(HttpRequest request, Throwable failure) {
    count("<error>", request);
  }

  private void count(String code, HttpRequest request) {
    metrics.restClientRequests.labelValues(code, request.method(), host(request.uri())).inc();
  }

  private static String host(URI uri) {
    if (uri == null || uri.getHost() == null) {
      return "";
    }
    return uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
  }
}
