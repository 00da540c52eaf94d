package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.client.KubernetesClient;

/** The TokenRequest API: {@code POST serviceaccounts/<name>/token}. Tests pass a fake. */
@FunctionalInterface
public interface TokenSource {

  /**
   * Asks the API server for a token of the service account.
   *
   * @throws Exception when the API server refuses or cannot be reached; the message says why
   */
  TokenRequest request(String namespace, String serviceAccount, TokenRequest request)
      throws Exception;

  /** Standalone: there is no API server to ask. */
  TokenSource NONE =
      (ns, sa, tr) -> {
        throw new IllegalStateException("no API server: jkubelet runs standalone");
      };

  /** The API server, through the node's client (the Node authorizer allows its pods' accounts). */
  static TokenSource api(KubernetesClient client) {
    return (ns, sa, tr) -> client.serviceAccounts().inNamespace(ns).withName(sa).tokenRequest(tr);
  }
}
