package io.jkubelet.agent.certificates;

import io.jkubelet.agent.util.Backoff;
import io.jkubelet.config.ConfigException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The client certificate's settings: upstream's {@code --kubeconfig}, {@code
 * --bootstrap-kubeconfig}, {@code --cert-dir} and {@code --rotate-certificates} (the configuration
 * field {@code rotateCertificates}), and {@code --rotate-server-certificates} ({@code
 * serverTLSBootstrap}). Validated in the constructor; errors name the flag.
 *
 * @param kubeconfig {@code --kubeconfig}, or null (standalone)
 * @param bootstrapKubeconfig {@code --bootstrap-kubeconfig}, or null
 * @param certDir where the certificates are kept (default {@code <root-dir>/pki})
 * @param rotateCertificates whether the client certificate is renewed before it expires
 * @param rotateServerCertificates whether the serving certificate is requested by CSRs and rotated
 *     ({@link CertificateManager#serving}; cluster mode only)
 * @param bootstrapWait how long a bootstrap request waits for its certificate (upstream: 1 h)
 * @param rotationWait how long a renewal waits for its certificate (upstream: 15 min)
 */
public record CertificateOptions(
    Path kubeconfig,
    Path bootstrapKubeconfig,
    Path certDir,
    boolean rotateCertificates,
    boolean rotateServerCertificates,
    Duration bootstrapWait,
    Duration rotationWait) {
  /** The file names' prefix in the cert dir, upstream's. */
  public static final String CLIENT_PREFIX = "kubelet-client";

  public static final Duration BOOTSTRAP_WAIT = Duration.ofHours(1);
  public static final Duration ROTATION_WAIT = Duration.ofMinutes(15);

  /**
   * The delays between failed requests, 2 s doubling to 5 min (and jittered by a tenth). Upstream
   * stops doubling at 32 s; a CSR that keeps failing (denied, or expired on arrival) is then filed
   * twice a minute, here at most twelve times an hour.
   */
  public static final Backoff.Policy RETRY =
      new Backoff.Policy(Duration.ofSeconds(2), Duration.ofMinutes(5));

  public CertificateOptions {
    if (certDir == null) {
      throw new ConfigException("--cert-dir", "must be set");
    }
    certDir = certDir.toAbsolutePath().normalize();
    kubeconfig = kubeconfig == null ? null : kubeconfig.toAbsolutePath().normalize();
    bootstrapKubeconfig =
        bootstrapKubeconfig == null ? null : bootstrapKubeconfig.toAbsolutePath().normalize();
    if (bootstrapKubeconfig != null && kubeconfig == null) {
      throw new ConfigException(
          "--bootstrap-kubeconfig",
          "needs --kubeconfig: the kubeconfig that bootstrap writes and the agent then uses");
    }
    if (bootstrapKubeconfig != null && bootstrapKubeconfig.equals(kubeconfig)) {
      throw new ConfigException(
          "--bootstrap-kubeconfig",
          "must not be the --kubeconfig file (" + kubeconfig + "), which bootstrap rewrites");
    }
    if (bootstrapWait == null || bootstrapWait.isNegative() || bootstrapWait.isZero()) {
      throw new IllegalArgumentException("bootstrapWait must be positive, got " + bootstrapWait);
    }
    if (rotationWait == null || rotationWait.isNegative() || rotationWait.isZero()) {
      throw new IllegalArgumentException("rotationWait must be positive, got " + rotationWait);
    }
  }

  /** The options with upstream's waits. */
  public static CertificateOptions of(
      Path kubeconfig,
      Path bootstrapKubeconfig,
      Path certDir,
      boolean rotateCertificates,
      boolean rotateServerCertificates) {
    return new CertificateOptions(
        kubeconfig,
        bootstrapKubeconfig,
        certDir,
        rotateCertificates,
        rotateServerCertificates,
        BOOTSTRAP_WAIT,
        ROTATION_WAIT);
  }

  /** Whether {@link Bootstrap} runs before the clients are made: upstream's condition. */
  public boolean bootstrapNeeded() {
    return kubeconfig != null && (bootstrapKubeconfig != null || rotateCertificates);
  }

  /** Whether the serving certificate is requested by CSRs (cluster mode only). */
  public boolean servingEnabled() {
    return kubeconfig != null && rotateServerCertificates;
  }

  /** Whether the client certificate is rotated (cluster mode only). */
  public boolean rotationEnabled() {
    return kubeconfig != null && rotateCertificates;
  }

  /** The bootstrap key, kept until its request succeeds so that a retry reuses its CSR. */
  Path pendingKeyPath() {
    return certDir.resolve(CLIENT_PREFIX + ".key.tmp");
  }
}
