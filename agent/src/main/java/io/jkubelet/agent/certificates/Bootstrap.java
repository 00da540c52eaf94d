package io.jkubelet.agent.certificates;

import io.jkubelet.agent.certificates.KubeconfigFile.ClusterInfo;
import io.jkubelet.agent.certificates.KubeconfigFile.Contents;
import io.jkubelet.agent.certificates.KubeconfigFile.KubeconfigException;
import io.jkubelet.agent.certificates.RequestException.Reason;
import io.jkubelet.agent.certificates.SigningRequests.ApiException;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.agent.util.Jitter;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS bootstrap, as upstream's {@code bootstrap.LoadClientCert}
 * (pkg/kubelet/certificate/bootstrap/bootstrap.go), run before the API clients are made. In order:
 *
 * <ol>
 *   <li>{@code --kubeconfig} has a client certificate that has not expired: used as it is. If the
 *       certificate is embedded ({@code client-certificate-data}, as {@code kubeadm init} writes
 *       it) and rotation is on, it is moved into the store and the kubeconfig rewritten to name the
 *       store's file, so that it can be rotated (kubeadm#1753).
 *   <li>Else the store's {@code kubelet-client-current.pem} has not expired: the kubeconfig is
 *       rewritten to name it. An expired certificate in the kubeconfig never causes a new bootstrap
 *       while the store has a good one (kubernetes#99645).
 *   <li>Else a certificate is requested with the bootstrap kubeconfig's credentials, stored, and
 *       {@code --kubeconfig} written with {@code client-certificate} and {@code client-key} both
 *       naming {@code <cert-dir>/kubelet-client-current.pem} and the bootstrap kubeconfig's server
 *       and CA. The request's key waits in {@code kubelet-client.key.tmp} until the certificate
 *       arrives, so a retry (or a restart) finds and waits on the same CSR.
 * </ol>
 *
 * <p>A kubeconfig that authenticates otherwise (a token) and no bootstrap kubeconfig: used as it
 * is, without a certificate to rotate. Failures are {@link BootstrapException}s naming the file;
 * {@link #loadRetrying} retries them with backoff rather than letting the agent crash-loop. Not
 * thread-safe: one caller, at start-up.
 */
final class Bootstrap {
  private static final Logger log = LoggerFactory.getLogger(Bootstrap.class);

  /** How far a new certificate's notBefore may be ahead of this node's clock. */
  static final Duration SKEW = Duration.ofMinutes(5);

  /** What bootstrap decided. */
  public enum Outcome {
    /** The kubeconfig's own certificate (or other credentials) are used as they are. */
    KUBECONFIG_VALID,
    /** The kubeconfig's embedded certificate was moved into the store. */
    EMBEDDED_MOVED,
    /** The kubeconfig was rewritten to name the store's current certificate. */
    FROM_STORE,
    /** A new certificate was requested with the bootstrap credentials. */
    BOOTSTRAPPED
  }

  /**
   * @param certificate the client certificate the kubeconfig now names; empty when it authenticates
   *     otherwise
   */
  public record Result(Outcome outcome, Optional<ClientCertificate> certificate) {}

  /** Bootstrap did not give a usable kubeconfig; the message names the file and the problem. */
  public static final class BootstrapException extends Exception {
    public BootstrapException(String message) {
      super(message);
    }
  }

  private final CertificateOptions options;
  private final String nodeName;
  private final SigningClients clients;
  private final Time time;
  private final CertificateEvent.Listener events;

  public Bootstrap(
      CertificateOptions options,
      String nodeName,
      SigningClients clients,
      Time time,
      CertificateEvent.Listener events) {
    if (options.kubeconfig() == null) {
      throw new IllegalArgumentException("bootstrap needs --kubeconfig");
    }
    this.options = options;
    this.nodeName = nodeName;
    this.clients = clients;
    this.time = time;
    this.events = events;
  }

  /**
   * {@link #load} until it succeeds, waiting a doubling, jittered delay (2 s up to 5 min) after
   * each failure, which is logged and reported as a {@link CertificateEvent.RequestFailed}.
   *
   * @throws ConfigException at once, for a certificate directory that cannot be used
   */
  public Result loadRetrying() throws InterruptedException {
    Duration delay = null;
    while (true) {
      try {
        return load();
      } catch (BootstrapException e) {
        delay = CertificateOptions.RETRY.next(delay);
        Duration wait = Jitter.jitter(delay, 0.1, () -> ThreadLocalRandom.current().nextDouble());
        log.warn("Bootstrap: {} (retrying in {})", e.getMessage(), wait);
        events.on(
            new CertificateEvent.RequestFailed(
                e.getMessage(), wait, CertificateKind.CLIENT.what()));
        time.sleeper().sleep(wait);
      }
    }
  }

  /** One attempt, as described on the class. */
  public Result load() throws BootstrapException, InterruptedException {
    Path kubeconfig = options.kubeconfig();
    Optional<Contents> existing = readKubeconfig(kubeconfig);
    var now = time.clock().instant();
    CertificateStore store =
        CertificateStore.files(options.certDir(), CertificateOptions.CLIENT_PREFIX, time.clock());
    if (existing.isPresent()) {
      Contents c = existing.get();
      Optional<ClientCertificate> cert = c.certificate().filter(x -> !x.expiredAt(now));
      if (cert.isPresent()) {
        if (c.embedded() && options.rotationEnabled()) {
          ClientCertificate moved = store.update(cert.get());
          try {
            KubeconfigFile.pointUserAt(kubeconfig, store.currentPath());
          } catch (IOException e) {
            throw Errors.withCause(
                new BootstrapException(
                    "unable to write kubeconfig " + kubeconfig + ": " + e.getMessage()),
                e);
          }
          log.info(
              "Bootstrap: moved the client certificate embedded in {} into {}, and {} now names"
                  + " it, so that it can be rotated",
              kubeconfig,
              store.currentPath(),
              kubeconfig);
          return new Result(Outcome.EMBEDDED_MOVED, Optional.of(moved));
        }
        log.info("Bootstrap: kubeconfig {} exists and is valid, skipping bootstrap", kubeconfig);
        return new Result(Outcome.KUBECONFIG_VALID, cert);
      }
      if (c.certificate().isEmpty()
          && c.hasOtherCredentials()
          && options.bootstrapKubeconfig() == null) {
        log.info(
            "Bootstrap: kubeconfig {} has no client certificate; using its credentials",
            kubeconfig);
        return new Result(Outcome.KUBECONFIG_VALID, Optional.empty());
      }
      log.info(
          "Bootstrap: kubeconfig {} has no usable client certificate: {}",
          kubeconfig,
          c.certificate().isPresent()
              ? "part of it expired at " + c.certificate().get().notAfter()
              : c.problem());
    }
    Optional<ClientCertificate> stored = storedCertificate(store);
    if (stored.isPresent() && !stored.get().expiredAt(now)) {
      ClusterInfo cluster = clusterForRewrite(existing);
      write(kubeconfig, cluster, store);
      log.info(
          "Bootstrap: {} is valid until {}; {} now names it",
          store.currentPath(),
          stored.get().notAfter(),
          kubeconfig);
      return new Result(Outcome.FROM_STORE, stored);
    }
    Path bootstrap = options.bootstrapKubeconfig();
    if (bootstrap == null) {
      throw new BootstrapException(
          "no valid client certificate in "
              + kubeconfig
              + " or "
              + store.currentPath()
              + ", and no --bootstrap-kubeconfig to request one with");
    }
    return bootstrap(kubeconfig, bootstrap, store);
  }

  private Result bootstrap(Path kubeconfig, Path bootstrap, CertificateStore store)
      throws BootstrapException, InterruptedException {
    log.info(
        "Bootstrap: using bootstrap kubeconfig {} to request a client certificate for {}",
        bootstrap,
        NodeCsr.commonName(nodeName));
    ClusterInfo cluster;
    try {
      cluster = KubeconfigFile.read(bootstrap).cluster();
    } catch (KubeconfigException e) {
      throw Errors.withCause(
          new BootstrapException(
              "unable to load bootstrap kubeconfig " + bootstrap + ": " + e.getMessage()),
          e);
    }
    KeyPair key = pendingKey();
    NodeCsr csr = NodeCsr.create(nodeName, key);
    CertificateRequester requester = new CertificateRequester(time.clock(), events, SKEW);
    ClientCertificate issued;
    try (SigningRequests api = open(bootstrap)) {
      issued = requester.request(api, csr, options.bootstrapWait());
    } catch (RequestException e) {
      if (e.reason().needsNewKey()) {
        forgetPendingKey();
      }
      throw Errors.withCause(new BootstrapException(describe(e, bootstrap, cluster)), e);
    }
    ClientCertificate stored = store.update(issued);
    forgetPendingKey();
    write(kubeconfig, cluster, store);
    log.info("Bootstrap: wrote {}, naming {}", kubeconfig, store.currentPath());
    return new Result(Outcome.BOOTSTRAPPED, Optional.of(stored));
  }

  private SigningRequests open(Path bootstrap) throws BootstrapException {
    try {
      return clients.withBootstrapCredentials(bootstrap);
    } catch (RuntimeException e) {
      throw Errors.withCause(
          new BootstrapException(
              "unable to load bootstrap kubeconfig " + bootstrap + ": " + e.getMessage()),
          e);
    }
  }

  private static String describe(RequestException e, Path bootstrap, ClusterInfo cluster) {
    if (e.getCause() instanceof ApiException api && api.unauthorized()) {
      return "the API server at "
          + cluster.server()
          + " refused the credentials of bootstrap kubeconfig "
          + bootstrap
          + " (401 Unauthorized): is its bootstrap token valid, unexpired, and is the API"
          + " server's --enable-bootstrap-token-auth on?";
    }
    if (e.getCause() instanceof ApiException api && api.code() == 403) {
      return "the credentials of bootstrap kubeconfig "
          + bootstrap
          + " may not request certificates (403 Forbidden; bind them to the ClusterRole"
          + " system:node-bootstrapper): "
          + e.getMessage();
    }
    if (e.reason() == Reason.API) {
      return "requesting a certificate with bootstrap kubeconfig "
          + bootstrap
          + ": "
          + e.getMessage();
    }
    return e.getMessage();
  }

  /** The kubeconfig's contents; empty when it does not exist or cannot be read (logged). */
  private static Optional<Contents> readKubeconfig(Path kubeconfig) {
    if (!Files.exists(kubeconfig)) {
      log.info("Bootstrap: kubeconfig {} does not exist", kubeconfig);
      return Optional.empty();
    }
    try {
      return Optional.of(KubeconfigFile.read(kubeconfig));
    } catch (KubeconfigException e) {
      log.warn("Bootstrap: unable to read existing kubeconfig: {}", e.getMessage());
      return Optional.empty();
    }
  }

  private static Optional<ClientCertificate> storedCertificate(CertificateStore store) {
    try {
      return store.current();
    } catch (StoreException e) {
      log.warn("Bootstrap: ignoring the stored certificate: {}", e.getMessage());
      return Optional.empty();
    }
  }

  /** The bootstrap kubeconfig's cluster when it reads, else the kubeconfig's own. */
  private ClusterInfo clusterForRewrite(Optional<Contents> existing) throws BootstrapException {
    Path bootstrap = options.bootstrapKubeconfig();
    if (bootstrap != null) {
      try {
        return KubeconfigFile.read(bootstrap).cluster();
      } catch (KubeconfigException e) {
        if (existing.isEmpty()) {
          throw Errors.withCause(
              new BootstrapException(
                  "unable to load bootstrap kubeconfig " + bootstrap + ": " + e.getMessage()),
              e);
        }
        log.warn("Bootstrap: {}; keeping the cluster of {}", e.getMessage(), options.kubeconfig());
      }
    }
    if (existing.isPresent()) {
      return existing.get().cluster();
    }
    throw new BootstrapException(
        options.kubeconfig() + " does not exist, and no --bootstrap-kubeconfig names the cluster");
  }

  private void write(Path kubeconfig, ClusterInfo cluster, CertificateStore store)
      throws BootstrapException {
    try {
      KubeconfigFile.write(kubeconfig, cluster, store.currentPath());
    } catch (IOException e) {
      throw Errors.withCause(
          new BootstrapException("unable to write kubeconfig " + kubeconfig + ": " + e), e);
    }
  }

  /** The pending request's key, or a new one saved for the next attempt. */
  private KeyPair pendingKey() throws BootstrapException {
    Path file = options.pendingKeyPath();
    if (Files.exists(file)) {
      try {
        String pem = Files.readString(file, StandardCharsets.US_ASCII);
        KeyPair pair = new KeyPair(Pem.publicKey(pem), Pem.privateKey(pem));
        if (Pem.matches(pair.getPublic(), pair.getPrivate())) {
          log.info("Bootstrap: reusing the pending request's key {}", file);
          return pair;
        }
        log.warn("Bootstrap: ignoring the pending key {}: its two halves do not match", file);
      } catch (IOException | Pem.PemException e) {
        log.warn("Bootstrap: ignoring the unreadable pending key {}: {}", file, e.getMessage());
      }
    }
    KeyPair key = NodeCsr.newKey();
    try {
      Files.deleteIfExists(file);
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(
          file,
          Pem.encode(key.getPrivate()) + Pem.block("PUBLIC KEY", key.getPublic().getEncoded()),
          StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw Errors.withCause(
          new BootstrapException("unable to write the request's key " + file + ": " + e), e);
    }
    return key;
  }

  private void forgetPendingKey() {
    try {
      Files.deleteIfExists(options.pendingKeyPath());
    } catch (IOException e) {
      log.info(
          "Bootstrap: failed cleaning up private key file {}: {}",
          options.pendingKeyPath(),
          e.toString());
    }
  }
}
