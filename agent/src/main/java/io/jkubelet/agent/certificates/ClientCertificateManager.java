package io.jkubelet.agent.certificates;

import io.jkubelet.agent.util.Time;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.LoggerFactory;

/**
 * The node's client certificate, kept current, as client-go's {@code certificate.Manager}: {@link
 * #start} reads the store and, with rotation on, renews the certificate at a jittered 70 to 90 % of
 * its lifetime with a new key, by a CSR sent as the node itself (or, once the certificate has
 * expired, with the bootstrap credentials). The API clients present {@link #current()} through a
 * {@link CertificateKeyManager}, so new connections use a new certificate at once.
 */
public interface ClientCertificateManager extends CertificateManager {
  /** The manager of the node's client certificate in {@code options.certDir()}. */
  static ClientCertificateManager create(
      CertificateOptions options,
      String nodeName,
      SigningClients clients,
      Time time,
      CertificateEvent.Listener events) {
    return RotatingCertificateManager.client(
        options, nodeName, clients, time, events, () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * TLS bootstrap, as upstream's {@code LoadClientCert}: the kubeconfig's own certificate, else the
   * store's, else a CSR with the bootstrap kubeconfig; retried with backoff until it succeeds.
   *
   * @return the certificate the kubeconfig now names, when jkubelet manages it
   */
  static Optional<ClientCertificate> bootstrap(
      CertificateOptions options,
      String nodeName,
      SigningClients clients,
      Time time,
      CertificateEvent.Listener events)
      throws InterruptedException {
    return new Bootstrap(options, nodeName, clients, time, events).loadRetrying().certificate();
  }

  /**
   * With rotation on, a kubeconfig's own certificate (in files of its own) becomes the store's
   * first one when the store has none, as upstream's file store falls back to the kubeconfig's
   * files: the manager then renews it rather than requesting one at once. A store that cannot be
   * read or written is logged, not thrown.
   */
  static void seed(CertificateOptions options, ClientCertificate certificate, Clock clock) {
    CertificateStore store =
        CertificateStore.files(options.certDir(), CertificateOptions.CLIENT_PREFIX, clock);
    try {
      if (store.current().isEmpty()) {
        store.update(certificate);
      }
    } catch (StoreException e) {
      LoggerFactory.getLogger(ClientCertificateManager.class)
          .warn("Certificate rotation: the store's current certificate: {}", e.getMessage());
    }
  }
}
