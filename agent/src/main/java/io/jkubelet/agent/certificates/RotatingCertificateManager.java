package io.jkubelet.agent.certificates;

import io.jkubelet.agent.util.Jitter;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Time;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.security.auth.x500.X500Principal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rotating {@link ClientCertificateManager}, ported from client-go's certificate manager
 * (https://github.com/kubernetes/client-go/blob/v0.20.2/util/certificate/certificate_manager.go).
 *
 * <p>One task at a time on the {@code certificate-rotation} scheduler: at the rotation deadline it
 * makes a CSR and waits for its certificate (up to {@code rotationWait}, blocking that thread
 * only), stores it, makes it current, and schedules the next deadline. A failed attempt is retried
 * after {@link CertificateOptions#RETRY}'s doubling delay. The key of a request that may still be
 * approved (a timeout, an API error) is kept for the next attempt, whose CSR then has the same name
 * and is waited on rather than filed again; a denied, failed or unusable one gets a new key.
 *
 * <p>Thread-safe: {@code cert} is volatile and written only by the rotation thread (and {@link
 * #start}); the other fields are confined to the rotation thread after {@link #start}.
 */
final class RotatingCertificateManager implements ClientCertificateManager {
  private static final Logger log = LoggerFactory.getLogger(RotatingCertificateManager.class);

  private final CertificateOptions options;
  private final String nodeName;
  private final SigningClients clients;
  private final Time time;
  private final CertificateEvent.Listener events;
  private final DoubleSupplier random;
  private final CertificateRequester requester;
  private final List<Consumer<ClientCertificate>> listeners = new CopyOnWriteArrayList<>();

  private volatile ClientCertificate cert;
  private volatile boolean started;
  private volatile CertificateStore store;
  private Scheduler scheduler;
  private KeyPair pendingKey;
  private Duration lastDelay;

  RotatingCertificateManager(
      CertificateOptions options,
      String nodeName,
      SigningClients clients,
      Time time,
      CertificateEvent.Listener events,
      DoubleSupplier random) {
    this.options = options;
    this.nodeName = nodeName;
    this.clients = clients;
    this.time = time;
    this.events = events;
    this.random = random;
    this.requester = new CertificateRequester(time.clock(), events, Bootstrap.SKEW);
  }

  @Override
  public synchronized void start() {
    if (started) {
      return;
    }
    store =
        CertificateStore.files(options.certDir(), CertificateOptions.CLIENT_PREFIX, time.clock());
    try {
      cert = store.current().orElse(null);
    } catch (CertificateStore.StoreException e) {
      log.warn("Certificate rotation: no usable current certificate: {}", e.getMessage());
    }
    started = true;
    if (!options.rotationEnabled()) {
      log.info("Certificate rotation is not enabled");
      return;
    }
    scheduler = time.schedulers().create("certificate-rotation");
    scheduleAt(nextRotationDeadline());
  }

  @Override
  public synchronized void stop() {
    started = false;
    if (scheduler != null) {
      scheduler.close();
      scheduler = null;
    }
  }

  @Override
  public Health healthy() {
    if (!started) {
      return Health.failing("certificate manager not started");
    }
    ClientCertificate c = cert;
    if (c == null) {
      return Health.failing("no client certificate in " + options.certDir());
    }
    if (c.expiredAt(time.clock().instant())) {
      return Health.failing("the client certificate expired at " + c.notAfter());
    }
    return Health.OK;
  }

  @Override
  public Optional<ClientCertificate> current() {
    ClientCertificate c = cert;
    if (c == null || c.expiredAt(time.clock().instant())) {
      return Optional.empty();
    }
    return Optional.of(c);
  }

  @Override
  public void onRotated(Consumer<ClientCertificate> listener) {
    listeners.add(listener);
  }

  /**
   * When to rotate, as upstream's {@code nextRotationDeadline}: now when there is no certificate or
   * it is not the node's (another subject), else at a uniformly random 70 to 90 % of its lifetime.
   */
  Instant nextRotationDeadline() {
    ClientCertificate c = cert;
    Instant now = time.clock().instant();
    if (c == null || !satisfiesTemplate(c)) {
      return now;
    }
    Instant deadline = deadline(c, random);
    log.info(
        "Certificate rotation: certificate expiration is {}, rotation deadline is {}",
        c.notAfter(),
        deadline);
    return deadline;
  }

  /** {@code notBefore} plus a uniformly random 70 to 90 % of the lifetime. */
  static Instant deadline(ClientCertificate c, DoubleSupplier random) {
    Duration total = c.lifetime();
    Duration jittered =
        Jitter.jitter(total, 0.2, random).minus(total.multipliedBy(3).dividedBy(10));
    return c.notBefore().plus(jittered);
  }

  private boolean satisfiesTemplate(ClientCertificate c) {
    String name = c.leaf().getSubjectX500Principal().getName(X500Principal.RFC2253);
    Set<String> cns = new HashSet<>();
    Set<String> orgs = new HashSet<>();
    try {
      for (Rdn rdn : new LdapName(name).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          cns.add(String.valueOf(rdn.getValue()));
        } else if (rdn.getType().equalsIgnoreCase("O")) {
          orgs.add(String.valueOf(rdn.getValue()));
        }
      }
    } catch (InvalidNameException e) {
      return false;
    }
    boolean ok = cns.contains(NodeCsr.commonName(nodeName)) && orgs.contains(NodeCsr.ORGANIZATION);
    if (!ok) {
      log.info(
          "Certificate rotation: current certificate subject {} is not CN={}, O={}; rotating now",
          name,
          NodeCsr.commonName(nodeName),
          NodeCsr.ORGANIZATION);
    }
    return ok;
  }

  private synchronized void scheduleAt(Instant at) {
    if (scheduler == null) {
      return;
    }
    Duration wait = Duration.between(time.clock().instant(), at);
    if (wait.isNegative()) {
      wait = Duration.ZERO;
    }
    if (!wait.isZero()) {
      log.info("Certificate rotation: waiting {} for the next certificate rotation", wait);
    }
    scheduler.after(wait, this::rotate);
  }

  /** One attempt; schedules the next one either way. */
  void rotate() {
    if (!started) {
      return;
    }
    log.info("Certificate rotation: rotating the client certificate");
    try {
      ClientCertificate issued = request();
      ClientCertificate stored = store.update(issued);
      pendingKey = null;
      lastDelay = null;
      cert = stored;
      log.info("Certificate rotation: now using {}", stored.describe());
      events.on(new CertificateEvent.Rotated(stored.describe()));
      for (Consumer<ClientCertificate> l : listeners) {
        try {
          l.accept(stored);
        } catch (RuntimeException e) {
          log.warn("Certificate rotation: a rotation listener failed", e);
        }
      }
      scheduleAt(nextRotationDeadline());
    } catch (RequestException e) {
      if (e.reason().needsNewKey()) {
        pendingKey = null;
      }
      retry(e.getMessage());
    } catch (CertificateStore.StoreException | SigningRequests.ApiException e) {
      retry(e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.error("Certificate rotation: unexpected failure", e);
      retry(e.toString());
    }
  }

  private ClientCertificate request() throws RequestException, InterruptedException {
    if (pendingKey == null) {
      pendingKey = NodeCsr.newKey();
    }
    NodeCsr csr = NodeCsr.create(nodeName, pendingKey);
    try (SigningRequests api = client()) {
      return requester.request(api, csr, options.rotationWait());
    }
  }

  /** As the node while its certificate is good; else with the bootstrap credentials, if any. */
  private SigningRequests client() throws RequestException {
    Optional<ClientCertificate> current = current();
    if (current.isPresent()) {
      return clients.asNode(current.get());
    }
    Path bootstrap = options.bootstrapKubeconfig();
    if (bootstrap == null) {
      throw new RequestException(
          RequestException.Reason.API,
          "no valid client certificate to request a new one with, and no --bootstrap-kubeconfig");
    }
    log.info(
        "Certificate rotation: no valid client certificate; using the bootstrap credentials of {}",
        bootstrap);
    try {
      return clients.withBootstrapCredentials(bootstrap);
    } catch (RuntimeException e) {
      throw new RequestException(
          RequestException.Reason.API,
          "unable to load bootstrap kubeconfig " + bootstrap + ": " + e.getMessage(),
          e);
    }
  }

  private void retry(String problem) {
    lastDelay = CertificateOptions.RETRY.next(lastDelay);
    Duration wait = Jitter.jitter(lastDelay, 0.1, random);
    log.warn("Certificate rotation: {} (retrying in {})", problem, wait);
    events.on(new CertificateEvent.RequestFailed(problem, wait));
    scheduleAt(time.clock().instant().plus(wait));
  }
}
