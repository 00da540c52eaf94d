package io.jkubelet.agent.certificates;

import java.nio.file.Path;

/**
 * Makes the clients that requests are sent with: as the node (its current certificate), or with the
 * bootstrap kubeconfig's credentials. The agent's implementation builds fabric8 clients on the
 * shared HTTP engine and wraps them in {@link ApiSigningRequests}; tests return fakes. Each client
 * is used for one request and then closed.
 */
public interface SigningClients {
  /** A client of the cluster that authenticates with {@code certificate}. */
  SigningRequests asNode(ClientCertificate certificate);

  /**
   * A client with the credentials of the bootstrap kubeconfig.
   *
   * @throws RuntimeException when the file cannot be used; the message names the file
   */
  SigningRequests withBootstrapCredentials(Path bootstrapKubeconfig);
}
