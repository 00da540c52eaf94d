package io.jkubelet.agent.certificates;

import io.jkubelet.agent.util.Time;
import java.util.concurrent.ThreadLocalRandom;

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
    return new RotatingCertificateManager(
        options, nodeName, clients, time, events, () -> ThreadLocalRandom.current().nextDouble());
  }
}
