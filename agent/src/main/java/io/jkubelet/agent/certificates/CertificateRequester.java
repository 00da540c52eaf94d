package io.jkubelet.agent.certificates;

import io.jkubelet.agent.certificates.RequestException.Reason;
import io.jkubelet.agent.certificates.SigningRequests.ApiException;
import io.jkubelet.agent.certificates.SigningRequests.Condition;
import io.jkubelet.agent.certificates.SigningRequests.Csr;
import io.jkubelet.agent.util.Errors;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files a node's CSR and waits for its certificate, as client-go's {@code csr.RequestCertificate}
 * and {@code csr.WaitForCertificate}
 * (https://github.com/kubernetes/client-go/blob/v0.20.2/util/certificate/csr/csr.go), with two
 * differences: an approved CSR without a certificate is reported (once), since it waits on a signer
 * that may not run (kubeadm#2091); and a certificate that is already expired when it arrives, or
 * not yet valid beyond the allowed skew, is an error rather than a certificate. (v1.20's signer
 * backdates {@code notBefore} by five minutes, so a signing duration under about six minutes issues
 * expired certificates; upstream stores them and files a new CSR at once, hundreds in a row. The
 * caller backs off instead.)
 *
 * <p>Every step is a log line naming the CSR, and an event for the {@link
 * CertificateEvent.Listener}. Waiting reads the CSR, then waits on {@link
 * SigningRequests#awaitChange} (a watch) for at most {@link #POLL}, so a lost watch costs at most
 * that. Time is the injected clock's. Stateless; one request per call.
 */
final class CertificateRequester {
  private static final Logger log = LoggerFactory.getLogger(CertificateRequester.class);

  /** The longest single wait before the CSR is read again. */
  static final Duration POLL = Duration.ofSeconds(30);

  private final Clock clock;
  private final CertificateEvent.Listener events;
  private final Duration skew;

  /**
   * @param skew how far in the future a new certificate's {@code notBefore} may be (the node's
   *     clock behind the signer's)
   */
  CertificateRequester(Clock clock, CertificateEvent.Listener events, Duration skew) {
    this.clock = clock;
    this.events = events;
    this.skew = skew;
  }

  /**
   * Files the CSR (or finds its pending twin) and waits up to {@code timeout} for its certificate.
   *
   * @return the issued chain with the request's key
   * @throws RequestException when the request ends without a usable certificate
   */
  ClientCertificate request(SigningRequests api, NodeCsr csr, Duration timeout)
      throws RequestException, InterruptedException {
    return request(api, csr, timeout, () -> false);
  }

  /**
   * As {@link #request(SigningRequests, NodeCsr, Duration)}, and gives up (a {@link
   * Reason#CANCELLED}) once {@code stale} says the request is no longer wanted, as upstream cancels
   * the wait on a serving CSR whose addresses changed; asked after each read of the CSR.
   */
  ClientCertificate request(
      SigningRequests api, NodeCsr csr, Duration timeout, BooleanSupplier stale)
      throws RequestException, InterruptedException {
    Csr filed = file(api, csr);
    return await(api, csr, filed.uid(), timeout, stale);
  }

  private Csr file(SigningRequests api, NodeCsr csr) throws RequestException {
    try {
      CertificateKind kind = csr.kind();
      Csr created = api.create(csr.name(), csr.pem(), kind.signer(), kind.usages());
      log.info(
          "Certificate request: created certificate signing request {} for {} (signer {}{})",
          csr.name(),
          NodeCsr.commonName(csr.nodeName()),
          kind.signer(),
          csr.sans().isEmpty() ? "" : ", " + csr.sans());
      events.on(new CertificateEvent.Requested(csr.name(), false, kind.what()));
      return created;
    } catch (ApiException e) {
      if (!e.alreadyExists()) {
        throw Errors.withCause(new RequestException(Reason.API, e.getMessage()), e);
      }
    }
    log.info("Certificate request: csr {} for this node already exists, reusing", csr.name());
    Csr existing;
    try {
      existing =
          api.get(csr.name())
              .orElseThrow(
                  () ->
                      new RequestException(
                          Reason.DELETED,
                          "certificate signing request " + csr.name() + " was deleted"));
    } catch (ApiException e) {
      throw Errors.withCause(
          new RequestException(
              Reason.API, "cannot retrieve certificate signing request: " + e.getMessage()),
          e);
    }
    Optional<String> problem = csr.incompatibility(existing);
    if (problem.isPresent()) {
      throw new RequestException(
          Reason.INCOMPATIBLE,
          "retrieved csr " + csr.name() + " is not compatible: " + problem.get());
    }
    log.info("Certificate request: csr {} for this node is still valid", csr.name());
    events.on(new CertificateEvent.Requested(csr.name(), true, csr.kind().what()));
    return existing;
  }

  /** A CSR's end by a condition, as its event. */
  @FunctionalInterface
  private interface Ended {
    CertificateEvent of(String csr, String conditionReason, String conditionMessage);
  }

  /**
   * Ends the request when the CSR has the condition {@code type} (denied or failed): a log line, an
   * event and a {@link RequestException} of {@code reason}, each saying what the condition says.
   */
  private void endIf(String name, Csr current, String type, Reason reason, String how, Ended event)
      throws RequestException {
    Optional<Condition> ended = current.condition(type);
    if (ended.isEmpty()) {
      return;
    }
    Condition c = ended.get();
    String what = name + " " + how + ", reason: " + c.reason() + ", message: " + c.message();
    log.warn("Certificate request: csr {}", what);
    events.on(event.of(name, c.reason(), c.message()));
    throw new RequestException(reason, "certificate signing request " + what);
  }

  private ClientCertificate await(
      SigningRequests api, NodeCsr csr, String uid, Duration timeout, BooleanSupplier stale)
      throws RequestException, InterruptedException {
    String name = csr.name();
    Instant deadline = clock.instant().plus(timeout);
    boolean pendingLogged = false;
    boolean approvedLogged = false;
    while (true) {
      Csr current;
      try {
        current =
            api.get(name)
                .orElseThrow(
                    () -> new RequestException(Reason.DELETED, "csr \"" + name + "\" was deleted"));
      } catch (ApiException e) {
        throw Errors.withCause(
            new RequestException(
                Reason.API, "cannot watch on the certificate signing request: " + e.getMessage()),
            e);
      }
      if (uid != null && current.uid() != null && !uid.equals(current.uid())) {
        throw new RequestException(Reason.DELETED, "csr \"" + name + "\" changed UIDs");
      }
      endIf(
          name,
          current,
          Condition.DENIED,
          Reason.DENIED,
          "is denied",
          CertificateEvent.Denied::new);
      endIf(name, current, Condition.FAILED, Reason.FAILED, "failed", CertificateEvent.Failed::new);
      if (current.condition(Condition.APPROVED).isPresent()) {
        if (!current.certificatePem().isEmpty()) {
          ClientCertificate issued = usable(csr, current.certificatePem());
          log.info("Certificate request: csr {} is issued: {}", name, issued.describe());
          events.on(new CertificateEvent.Issued(name, issued.describe()));
          return issued;
        }
        if (!approvedLogged) {
          approvedLogged = true;
          CertificateEvent.ApprovedNotIssued e =
              new CertificateEvent.ApprovedNotIssued(name, csr.kind().signer());
          log.warn("Certificate request: {}", e.message());
          events.on(e);
        }
      } else if (!pendingLogged) {
        pendingLogged = true;
        log.info("Certificate request: csr {} is pending, waiting for its approval", name);
        if (csr.kind().pendingIsWarning()) {
          events.on(new CertificateEvent.Pending(name, csr.kind()));
        }
      }
      if (stale.getAsBoolean()) {
        throw new RequestException(
            Reason.CANCELLED,
            "stopped waiting for certificate signing request "
                + name
                + ": the certificate it asks for is no longer wanted");
      }
      Duration left = Duration.between(clock.instant(), deadline);
      if (left.isNegative() || left.isZero()) {
        throw new RequestException(
            Reason.TIMEOUT,
            "timed out after "
                + timeout
                + " waiting for certificate signing request "
                + name
                + (approvedLogged ? " to be issued (it is approved)" : " to be approved"));
      }
      api.awaitChange(name, current.resourceVersion(), left.compareTo(POLL) < 0 ? left : POLL);
    }
  }

  /** The issued chain with the request's key, if it can be used now. */
  private ClientCertificate usable(NodeCsr csr, String pem) throws RequestException {
    String name = csr.name();
    List<X509Certificate> chain;
    try {
      chain = Pem.certificates(pem);
    } catch (Pem.PemException e) {
      throw unusable(name, "cannot be read: " + e.getMessage());
    }
    ClientCertificate issued = new ClientCertificate(chain, csr.key().getPrivate());
    if (!Arrays.equals(
        issued.leaf().getPublicKey().getEncoded(), csr.key().getPublic().getEncoded())) {
      throw unusable(name, "is not for the requested key");
    }
    Instant now = clock.instant();
    if (issued.expiredAt(now)) {
      throw unusable(
          name,
          "had expired when it arrived (valid from "
              + issued.notBefore()
              + " until "
              + issued.notAfter()
              + ", now "
              + now
              + "); a signing duration under about six minutes does this, as the signer"
              + " backdates certificates by five minutes");
    }
    if (issued.notBefore().isAfter(now.plus(skew))) {
      throw unusable(
          name,
          "is not valid until "
              + issued.notBefore()
              + ", more than "
              + skew
              + " after this node's time ("
              + now
              + "); is the node's clock behind?");
    }
    return issued;
  }

  private RequestException unusable(String csr, String why) {
    CertificateEvent.Unusable e = new CertificateEvent.Unusable(csr, why);
    log.warn("Certificate request: {}", e.message());
    events.on(e);
    return new RequestException(Reason.UNUSABLE, e.message());
  }
}
