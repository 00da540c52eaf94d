package io.jkubelet.agent.certificates;

import io.jkubelet.agent.util.Errors;
import java.math.BigInteger;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A client certificate with its private key: the leaf first, then any intermediates. Immutable.
 *
 * @param chain the certificates, leaf first; never empty
 * @param key the leaf's private key
 */
public record ClientCertificate(List<X509Certificate> chain, PrivateKey key) {
  public ClientCertificate {
    chain = List.copyOf(chain);
    if (chain.isEmpty() || key == null) {
      throw new IllegalArgumentException("a client certificate needs a certificate and a key");
    }
  }

  public X509Certificate leaf() {
    return chain.get(0);
  }

  public Instant notBefore() {
    return leaf().getNotBefore().toInstant();
  }

  public Instant notAfter() {
    return leaf().getNotAfter().toInstant();
  }

  /** The leaf's whole lifetime, from {@code notBefore} to {@code notAfter}. */
  public Duration lifetime() {
    return Duration.between(notBefore(), notAfter());
  }

  /**
   * Whether any certificate of the chain has expired at {@code now}: as upstream, a certificate is
   * good up to and including its {@code notAfter}.
   */
  public boolean expiredAt(Instant now) {
    return chain.stream().anyMatch(c -> now.isAfter(c.getNotAfter().toInstant()));
  }

  /** The leaf's serial number. */
  public BigInteger serial() {
    return leaf().getSerialNumber();
  }

  /**
   * Reads a PEM file holding the certificates and the key, as {@code kubelet-client-current.pem}.
   *
   * @throws StoreException naming the file, when it cannot be read or used
   */
  public static ClientCertificate read(java.nio.file.Path pem) {
    try {
      String text = java.nio.file.Files.readString(pem, java.nio.charset.StandardCharsets.US_ASCII);
      return Pem.pair(text, text);
    } catch (java.io.IOException | Pem.PemException e) {
      throw Errors.withCause(
          new StoreException(
              "cannot read the client certificate and key in " + pem + ": " + e.getMessage()),
          e);
    }
  }

  /** The leaf's subject, serial and validity, for log lines and error messages. */
  public String describe() {
    return leaf().getSubjectX500Principal().getName()
        + " (serial "
        + serial().toString(16)
        + ", valid from "
        + notBefore()
        + " until "
        + notAfter()
        + ")";
  }
}
