package io.jkubelet.agent.client;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A GET served from the API server's watch cache ({@code ?resourceVersion=0}), as upstream's
 * kubelet reads its Node on the first try of each status update ({@code util.FromApiserverCache}):
 * the API server answers from memory, without a read of etcd, with an object that may be a moment
 * behind. fabric8's {@code get()} has no resource version, so this sends the request on the
 * client's own HTTP client (its interceptors, its identity).
 *
 * <p>Stateless; thread-safe.
 */
public final class CachedReads {
  private static final long DEFAULT_TIMEOUT_MILLIS = 10_000;

  private CachedReads() {}

  /**
   * The cluster-scoped object {@code /api/v1/<resource>/<name>} from the watch cache; null when the
   * API server has none.
   *
   * @throws KubernetesClientException when the API server answers otherwise, or not at all (and
   *     when interrupted, with the thread's interrupt flag set again)
   */
  public static <T> T get(KubernetesClient client, String resource, String name, Class<T> type) {
    String base = client.getMasterUrl().toString();
    String url =
        (base.endsWith("/") ? base : base + "/")
            + "api/v1/"
            + resource
            + "/"
            + URLEncoder.encode(name, StandardCharsets.UTF_8)
            + "?resourceVersion=0";
    HttpRequest request = client.getHttpClient().newHttpRequestBuilder().uri(url).build();
    HttpResponse<String> response;
    try {
      response =
          client
              .getHttpClient()
              .sendAsync(request, String.class)
              .get(timeoutMillis(client), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new KubernetesClientException("GET " + url + " failed", e.getCause());
    } catch (TimeoutException e) {
      throw new KubernetesClientException("GET " + url + " timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("GET " + url + " interrupted", e);
    }
    if (response.code() == 404) {
      return null;
    }
    if (!response.isSuccessful()) {
      Status status = null;
      try {
        status = client.getKubernetesSerialization().unmarshal(response.body(), Status.class);
      } catch (RuntimeException notStatus) {
        // the body is not a Status: the code says enough
      }
      String message = status != null && status.getMessage() != null ? status.getMessage() : "";
      throw new KubernetesClientException(
          "GET " + url + ": " + response.code() + " " + message, response.code(), status);
    }
    return client.getKubernetesSerialization().unmarshal(response.body(), type);
  }

  private static long timeoutMillis(KubernetesClient client) {
    Integer configured = client.getConfiguration().getRequestTimeout();
    return configured == null || configured <= 0 ? DEFAULT_TIMEOUT_MILLIS : configured;
  }
}
