package io.jkubelet.agent.certificates;

import io.jkubelet.agent.util.Jitter;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Time;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rotating {@link CertificateManager}, ported from client-go's certificate manager
 * (https://github.com/kubernetes/client-go/blob/v0.20.2/util/certificate/certificate_manager.go),
 * for either {@link CertificateKind}: the client certificate (no names, requested as the node or,
 * once expired, with the bootstrap credentials) and the serving certificate (the node's addresses
 * as names, upstream's dynamic template).
 *
 * <p>One task at a time on the kind's scheduler thread: at the rotation deadline it makes a CSR and
 * waits for its certificate (up to {@code rotationWait}, blocking that thread only), stores it,
 * makes it current, and schedules the next deadline. A failed attempt is retried after {@link
 * CertificateOptions#RETRY}'s doubling delay. The key of a request that may still be approved (a
 * timeout, an API error) is kept for the next attempt, whose CSR then has the same name and is
 * waited on rather than filed again; a denied, failed or unusable one gets a new key.
 *
 * <p>The template (the names the certificate is for) is asked every {@link #TEMPLATE_CHECK}: when
 * the current certificate is not for it and it differs from what was last requested, a request is
 * made at once, and a wait on a CSR for other names ends (upstream's {@code templateChanged}). With
 * no template yet (a serving certificate before the Node has addresses), nothing is requested.
 *
 * <p>Thread-safe: {@code cert} is volatile and written only by the rotation thread (and {@link
 * #start}); the other fields are confined to the rotation thread after {@link #start}.
 */
final class RotatingCertificateManager implements ClientCertificateManager {
  private static final Logger log = LoggerFactory.getLogger(RotatingCertificateManager.class);

  /** How often the template is compared with the certificate and the last request. */
  static final Duration TEMPLATE_CHECK = Duration.ofSeconds(2);

  private final CertificateKind kind;
  private final CertificateOptions options;
  private final String nodeName;
  private final Supplier<Optional<Sans>> template;
  private final RequestOpener opener;
  private final Time time;
  private final CertificateEvent.Listener events;
  private final DoubleSupplier random;
  private final CertificateRequester requester;
  private final List<Consumer<ClientCertificate>> listeners = new CopyOnWriteArrayList<>();

  private volatile ClientCertificate cert;
  private volatile boolean started;
  private volatile CertificateStore store;
  private Scheduler scheduler;
  private Scheduler.Task next;
  private KeyPair pendingKey;
  private Duration lastDelay;

  /** The names of the last request: a new template is requested once. */
  private volatile Sans lastRequested;

  private volatile boolean rotating;

  /** The client certificate's manager. */
  static RotatingCertificateManager client(
      CertificateOptions options,
      String nodeName,
      SigningClients clients,
      Time time,
      CertificateEvent.Listener events,
      DoubleSupplier random) {
    return new RotatingCertificateManager(
        CertificateKind.CLIENT,
        options,
        nodeName,
        () -> Optional.of(Sans.NONE),
        RequestOpener.forClient(options, clients),
        time,
        events,
        random);
  }

  /** The serving certificate's manager, for the names {@code addresses} gives once known. */
  static RotatingCertificateManager serving(
      CertificateOptions options,
      String nodeName,
      Supplier<Optional<Sans>> addresses,
      SigningRequests api,
      Time time,
      CertificateEvent.Listener events) {
    return new RotatingCertificateManager(
        CertificateKind.SERVING,
        options,
        nodeName,
        () -> addresses.get().filter(s -> !s.isEmpty()),
        current -> api,
        time,
        events,
        () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * @param template the names the certificate is for; empty while they are not known
   * @param opener the client each request is sent with
   */
  RotatingCertificateManager(
      CertificateKind kind,
      CertificateOptions options,
      String nodeName,
      Supplier<Optional<Sans>> template,
      RequestOpener opener,
      Time time,
      CertificateEvent.Listener events,
      DoubleSupplier random) {
    this.kind = kind;
    this.options = options;
    this.nodeName = nodeName;
    this.template = template;
    this.opener = opener;
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
    store = CertificateStore.files(options.certDir(), kind.prefix(), time.clock());
    try {
      cert = store.current().orElse(null);
    } catch (StoreException e) {
      log.warn(
          "Certificate rotation: no usable current {} certificate: {}",
          kind.what(),
          e.getMessage());
    }
    started = true;
    if (kind.equals(CertificateKind.CLIENT) && !options.rotationEnabled()) {
      log.info("Certificate rotation is not enabled");
      return;
    }
    scheduler = time.schedulers().create(kind.thread());
    Optional<Instant> deadline = nextRotationDeadline();
    deadline.ifPresent(this::scheduleAt);
    if (!kind.equals(CertificateKind.CLIENT)) {
      // The client certificate's names never change; the serving certificate's follow the Node.
      scheduler.withFixedDelay(TEMPLATE_CHECK, TEMPLATE_CHECK, this::checkTemplate);
    }
  }

  /**
   * Requests at once when the wanted names changed: the certificate is not for them, and the last
   * request was not for them either. A rotation in progress ends its wait by itself ({@link
   * #stale}).
   */
  void checkTemplate() {
    if (!started || rotating) {
      return;
    }
    Optional<Sans> wanted = template.get();
    if (wanted.isEmpty() || wanted.get().equals(lastRequested)) {
      return;
    }
    ClientCertificate c = cert;
    if (c != null && RotationDeadline.isFor(c, nodeName, wanted.get())) {
      return;
    }
    log.info(
        "Certificate rotation: the {} certificate is wanted for {}; requesting one",
        kind.what(),
        wanted.get());
    scheduleAt(time.clock().instant());
  }

  /** Whether a request under way asks for other names than are wanted now. */
  private boolean stale(Sans requested) {
    Optional<Sans> wanted = template.get();
    return wanted.isPresent() && !wanted.get().equals(requested);
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
      return Health.failing("no " + kind.what() + " certificate in " + options.certDir());
    }
    if (c.expiredAt(time.clock().instant())) {
      return Health.failing("the " + kind.what() + " certificate expired at " + c.notAfter());
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
   * it is not the node's (another subject, other names), else at a uniformly random 70 to 90 % of
   * its lifetime; empty (no request) while the names are not known.
   */
  Optional<Instant> nextRotationDeadline() {
    ClientCertificate c = cert;
    Instant now = time.clock().instant();
    Optional<Sans> wanted = template.get();
    if (c == null || (wanted.isPresent() && !RotationDeadline.isFor(c, nodeName, wanted.get()))) {
      return wanted.isPresent() ? Optional.of(now) : Optional.empty();
    }
    Instant deadline = RotationDeadline.at(c, random);
    log.info(
        "Certificate rotation: {} certificate expiration is {}, rotation deadline is {}",
        kind.what(),
        c.notAfter(),
        deadline);
    return Optional.of(deadline);
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
      log.info(
          "Certificate rotation: waiting {} for the next {} certificate rotation",
          wait,
          kind.what());
    }
    if (next != null) {
      next.cancel();
    }
    next = scheduler.after(wait, this::rotate);
  }

  /** One attempt; schedules the next one either way. */
  void rotate() {
    if (!started) {
      return;
    }
    Optional<Sans> wanted = template.get();
    if (wanted.isEmpty()) {
      log.info("Certificate rotation: the {} certificate's names are not known yet", kind.what());
      return;
    }
    log.info("Certificate rotation: rotating the {} certificate", kind.what());
    rotating = true;
    try {
      ClientCertificate issued = request(wanted.get());
      ClientCertificate stored = store.update(issued);
      pendingKey = null;
      lastDelay = null;
      cert = stored;
      log.info("Certificate rotation: now using {}", stored.describe());
      events.on(new CertificateEvent.Rotated(stored.describe(), kind.what()));
      for (Consumer<ClientCertificate> l : listeners) {
        try {
          l.accept(stored);
        } catch (RuntimeException e) {
          log.warn("Certificate rotation: a rotation listener failed", e);
        }
      }
      nextRotationDeadline().ifPresent(this::scheduleAt);
    } catch (RequestException e) {
      if (e.reason().needsNewKey()) {
        pendingKey = null;
      }
      retry(e.getMessage());
    } catch (StoreException | SigningRequests.ApiException e) {
      retry(e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.error("Certificate rotation: unexpected failure", e);
      retry(e.toString());
    } finally {
      rotating = false;
    }
  }

  private ClientCertificate request(Sans names) throws RequestException, InterruptedException {
    if (pendingKey == null || !names.equals(lastRequested)) {
      // A new key for new names: the same key would find the CSR for the old ones by its name.
      pendingKey = NodeCsr.newKey();
    }
    lastRequested = names;
    NodeCsr csr = NodeCsr.create(kind, nodeName, names, pendingKey);
    try (SigningRequests api = opener.open(current())) {
      return requester.request(api, csr, options.rotationWait(), () -> stale(names));
    }
  }

  private void retry(String problem) {
    lastDelay = CertificateOptions.RETRY.next(lastDelay);
    Duration wait = Jitter.jitter(lastDelay, 0.1, random);
    log.warn("Certificate rotation: {} (retrying in {})", problem, wait);
    events.on(new CertificateEvent.RequestFailed(problem, wait, kind.what()));
    scheduleAt(time.clock().instant().plus(wait));
  }
}
