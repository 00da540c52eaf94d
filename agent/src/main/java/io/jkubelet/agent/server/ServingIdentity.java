package io.jkubelet.agent.server;

import io.jkubelet.agent.certificates.CertificateKeyManager;
import io.jkubelet.agent.certificates.CertificateManager;
import io.jkubelet.agent.certificates.ClientCertificate;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Time;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The certificate the kubelet API presents: the one from the CSR API ({@code serverTLSBootstrap}, a
 * {@link CertificateManager}) once it has one, else the fallback: {@code tlsCertFile} and {@code
 * tlsPrivateKeyFile}, or the self-signed {@code kubelet.crt} in the cert dir. Upstream refuses
 * every handshake until its serving CSR is approved (kubeadm#1223); here the API keeps answering
 * with the fallback. Each handshake asks {@link #keyManager} afresh, so a certificate that arrives
 * (or is renewed) is presented without a restart.
 *
 * <p>The self-signed certificate is renewed at 80 % of its lifetime (at start when that is past,
 * else on the {@code serving-certificate} scheduler), which upstream never does; one from the
 * configuration's files is the operator's to renew.
 *
 * <p>Lifecycle: {@link #start} reads or makes the fallback (I/O) and starts the manager; {@link
 * #stop} stops both. Thread-safe: the fallback is volatile.
 */
public final class ServingIdentity implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(ServingIdentity.class);

  /** How much of a self-signed certificate's lifetime passes before it is made again. */
  static final double SELF_SIGNED_RENEWAL = 0.8;

  private final ServingCerts fixed;
  private final Path certDir;
  private final String hostname;
  private final List<String> addresses;
  private final CertificateManager manager;
  private final Time time;
  private final CertificateKeyManager keys;
  private volatile ClientCertificate fallback;
  private Scheduler scheduler;

  /**
   * @param fixed the configuration's certificate, or null for a self-signed one in {@code certDir}
   * @param hostname and {@code addresses}: the self-signed certificate's names
   * @param manager the CSR API's certificate, or null without {@code serverTLSBootstrap}
   */
  public ServingIdentity(
      ServingCerts fixed,
      Path certDir,
      String hostname,
      List<String> addresses,
      CertificateManager manager,
      Time time) {
    this.fixed = fixed;
    this.certDir = certDir;
    this.hostname = hostname;
    this.addresses = List.copyOf(addresses);
    this.manager = manager;
    this.time = time;
    this.keys = new CertificateKeyManager(this::current);
  }

  /** What the server's TLS presents: asked at each handshake. */
  public CertificateKeyManager keyManager() {
    return keys;
  }

  /** The certificate presented now: the CSR API's while it is valid, else the fallback. */
  public Optional<ClientCertificate> current() {
    if (manager != null) {
      Optional<ClientCertificate> issued = manager.current();
      if (issued.isPresent()) {
        return issued;
      }
    }
    return Optional.ofNullable(fallback);
  }

  @Override
  public void start() {
    if (fixed != null) {
      fallback = new ClientCertificate(fixed.chain(), fixed.key());
    } else {
      fallback = selfSigned(false);
      scheduler = time.schedulers().create("serving-certificate");
      scheduleRenewal();
    }
    if (manager != null) {
      manager.onRotated(
          c ->
              log.info(
                  "kubelet server: new TLS handshakes present the serving certificate {}",
                  c.describe()));
      manager.start();
      manager
          .current()
          .ifPresentOrElse(
              c -> log.info("kubelet server: serving certificate {}", c.describe()),
              () ->
                  log.info(
                      "kubelet server: no serving certificate from the CSR API yet; presenting"
                          + " {} until one is issued",
                      fixed != null ? "the configured certificate" : "the self-signed one"));
    }
  }

  /** Reads the self-signed pair, or makes it when missing, expired or due ({@code renew}). */
  private ClientCertificate selfSigned(boolean renew) {
    try {
      ServingCerts certs;
      try {
        certs = ServingCerts.selfSigned(certDir, hostname, addresses, time.clock());
      } catch (IOException e) {
        log.warn(
            "kubelet server: the self-signed certificate cannot be read ({}); making one",
            e.getMessage());
        renew = true;
        certs = null;
      }
      ClientCertificate c =
          certs == null ? null : new ClientCertificate(certs.chain(), certs.key());
      Instant now = time.clock().instant();
      if (renew || !now.isBefore(renewalAt(c)) || !matches(c)) {
        certs = ServingCerts.makeSelfSigned(certDir, hostname, addresses, time.clock());
        c = new ClientCertificate(certs.chain(), certs.key());
        log.info("kubelet server: made a new self-signed certificate: {}", c.describe());
      }
      return c;
    } catch (IOException e) {
      throw new IllegalStateException(
          "kubelet server: self-signed certificate in " + certDir + ": " + e.getMessage(), e);
    }
  }

  /** Whether the key is the certificate's (a crash between the two files' renames). */
  private static boolean matches(ClientCertificate c) {
    try {
      java.security.Signature s =
          java.security.Signature.getInstance(
              c.key().getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA");
      s.initSign(c.key());
      s.update(new byte[] {1});
      byte[] signed = s.sign();
      s.initVerify(c.leaf().getPublicKey());
      s.update(new byte[] {1});
      return s.verify(signed);
    } catch (java.security.GeneralSecurityException | RuntimeException e) {
      return false;
    }
  }

  static Instant renewalAt(ClientCertificate c) {
    long millis = (long) (c.lifetime().toMillis() * SELF_SIGNED_RENEWAL);
    return c.notBefore().plus(Duration.ofMillis(millis));
  }

  private synchronized void scheduleRenewal() {
    if (scheduler == null) {
      return;
    }
    Duration wait = Duration.between(time.clock().instant(), renewalAt(fallback));
    log.info(
        "kubelet server: the self-signed certificate expires at {}; renewed in {}",
        fallback.notAfter(),
        wait);
    scheduler.after(wait.isNegative() ? Duration.ZERO : wait, this::renew);
  }

  /** Makes a new self-signed certificate; on failure, tries again in an hour. */
  void renew() {
    try {
      fallback = selfSigned(true);
      scheduleRenewal();
    } catch (RuntimeException e) {
      log.error("kubelet server: cannot renew the self-signed certificate (retrying in 1h)", e);
      synchronized (this) {
        if (scheduler != null) {
          scheduler.after(Duration.ofHours(1), this::renew);
        }
      }
    }
  }

  @Override
  public synchronized void stop() {
    if (manager != null) {
      manager.stop();
    }
    if (scheduler != null) {
      scheduler.close();
      scheduler = null;
    }
  }

  @Override
  public Health healthy() {
    return current().isPresent() ? Health.OK : Health.failing("no serving certificate");
  }
}
