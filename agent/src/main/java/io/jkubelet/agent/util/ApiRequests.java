package io.jkubelet.agent.util;

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
 * The requests fabric8's DSL cannot express, sent on a client's own HTTP client (its interceptors,
 * its identity) with its request timeout: a GET served from the API server's watch cache, and any
 * request to a path of the API server.
 *
 * <p>Stateless; thread-safe.
 */
public final class ApiRequests {
  private static final long DEFAULT_TIMEOUT_MILLIS = 10_000;

  private ApiRequests() {}

  /**
   * The cluster-scoped object {@code /api/v1/<resource>/<name>} from the API server's watch cache
   * ({@code ?resourceVersion=0}), as upstream's kubelet reads its Node on the first try of each
   * status update ({@code util.FromApiserverCache}): answered from memory, without a read of etcd,
   * and possibly a moment behind. fabric8's {@code get()} has no resource version. Null when the
   * API server has none.
   *
   * @throws KubernetesClientException when the API server answers otherwise, or not at all (and
   *     when interrupted, with the thread's interrupt flag set again)
   */
  public static <T> T getCached(
      KubernetesClient client, String resource, String name, Class<T> type) {
    String path = "api/v1/" + resource + "/" + URLEncoder.encode(name, StandardCharsets.UTF_8);
    HttpRequest request =
        client
            .getHttpClient()
            .newHttpRequestBuilder()
            .uri(url(client, path) + "?resourceVersion=0")
            .build();
    HttpResponse<String> response;
    try {
      response = send(client, request);
    } catch (ExecutionException | TimeoutException e) {
      throw new KubernetesClientException(
          "GET " + path + " failed", e instanceof ExecutionException ? e.getCause() : e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("GET " + path + " interrupted", e);
    }
    if (response.code() == 404) {
      return null;
    }
    if (!response.isSuccessful()) {
      throw error(client, "GET " + path, response);
    }
    return client.getKubernetesSerialization().unmarshal(response.body(), type);
  }

  /**
   * The exception fabric8 would throw for the API server's refusal: its code, and the {@code
   * Status} of the answer's body when it is one (its message then in the exception's).
   *
   * @param what the request, e.g. {@code GET api/v1/nodes/n1}
   */
  public static KubernetesClientException error(
      KubernetesClient client, String what, HttpResponse<String> response) {
    Status status = null;
    try {
      status = client.getKubernetesSerialization().unmarshal(response.body(), Status.class);
    } catch (RuntimeException notStatus) {
      // the body is not a Status: the code says enough
    }
    String message = status != null && status.getMessage() != null ? status.getMessage() : "";
    return new KubernetesClientException(
        what + ": " + response.code() + " " + message, response.code(), status);
  }

  /** The URL of {@code path} (no leading slash) on the client's API server. */
  public static String url(KubernetesClient client, String path) {
    String base = client.getMasterUrl().toString();
    return (base.endsWith("/") ? base : base + "/") + path;
  }

  /**
   * Sends the request and waits for its answer, at most the client's request timeout (10 s when it
   * has none).
   *
   * @throws ExecutionException when the request failed (its cause says why)
   * @throws TimeoutException when no answer came in time
   */
  public static HttpResponse<String> send(KubernetesClient client, HttpRequest request)
      throws InterruptedException, ExecutionException, TimeoutException {
    Integer configured = client.getConfiguration().getRequestTimeout();
    long timeout = configured == null || configured <= 0 ? DEFAULT_TIMEOUT_MILLIS : configured;
    return client
        .getHttpClient()
        .sendAsync(request, String.class)
        .get(timeout, TimeUnit.MILLISECONDS);
  }
}
