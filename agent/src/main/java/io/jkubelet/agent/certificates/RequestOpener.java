package io.jkubelet.agent.certificates;

import io.jkubelet.agent.util.Errors;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/** Opens the client a certificate request is sent with. */
@FunctionalInterface
interface RequestOpener {
  /**
   * @param current the manager's current certificate, if valid
   */
  SigningRequests open(Optional<ClientCertificate> current) throws RequestException;

  /** The client certificate's opener. */
  static RequestOpener forClient(CertificateOptions options, SigningClients clients) {
    return current -> clientFor(options, clients, current);
  }

  /**
   * The client certificate's requests: as the node while its certificate is good; else with the
   * bootstrap credentials, if any.
   */
  private static SigningRequests clientFor(
      CertificateOptions options, SigningClients clients, Optional<ClientCertificate> current)
      throws RequestException {
    if (current.isPresent()) {
      return clients.asNode(current.get());
    }
    Path bootstrap = options.bootstrapKubeconfig();
    if (bootstrap == null) {
      throw new RequestException(
          RequestException.Reason.API,
          "no valid client certificate to request a new one with, and no --bootstrap-kubeconfig");
    }
    LoggerFactory.getLogger(RotatingCertificateManager.class)
        .info(
            "Certificate rotation: no valid client certificate; using the bootstrap credentials of {}",
            bootstrap);
    try {
      return clients.withBootstrapCredentials(bootstrap);
    } catch (RuntimeException e) {
      throw Errors.withCause(
          new RequestException(
              RequestException.Reason.API,
              "unable to load bootstrap kubeconfig " + bootstrap + ": " + e.getMessage()),
          e);
    }
  }
}
