package io.jkubelet.agent.certificates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.certificates.RequestException.Reason;
import io.jkubelet.agent.certificates.SigningRequests.ApiException;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Filing a CSR and waiting on it, against the fake API on a fake clock. */
class CertificateRequesterTest {
  private static final Duration TIMEOUT = Duration.ofMinutes(15);
  private final FakeClock clock = new FakeClock();
  private final FakeSigningRequests api = new FakeSigningRequests(clock);
  private final RecordingListener events = new RecordingListener();
  private final CertificateRequester requester =
      new CertificateRequester(clock, events, Duration.ofMinutes(5));
  private final TestCa ca = new TestCa();
  private final NodeCsr csr = NodeCsr.create("n1", NodeCsr.newKey());

  private String issued(Duration backdate, Duration validity) {
    Instant now = clock.instant();
    return ca.issue(csr.pem(), now.minus(backdate), now.minus(backdate).plus(validity));
  }

  @Test
  void anApprovedAndIssuedCsrGivesItsCertificateWithTheRequestsKey() throws Exception {
    // The approver and the signer act together, as kube-controller-manager's do.
    api.thenOnWait(
        f -> {
          f.approve(csr.name());
          f.issue(csr.name(), issued(Duration.ofMinutes(5), Duration.ofDays(365)));
        });

    ClientCertificate cert = requester.request(api, csr, TIMEOUT);

    assertThat(cert.key()).isEqualTo(csr.key().getPrivate());
    assertThat(cert.leaf().getPublicKey().getEncoded())
        .isEqualTo(csr.key().getPublic().getEncoded());
    assertThat(api.creates()).isEqualTo(1);
    assertThat(api.all().get(0).signerName())
        .isEqualTo("kubernetes.io/kube-apiserver-client-kubelet");
    assertThat(api.all().get(0).usages())
        .containsExactly("digital signature", "key encipherment", "client auth");
    assertThat(events.reasons())
        .containsExactly(CertificateEvent.REQUESTED, CertificateEvent.ISSUED);
    assertThat(events.events.get(0).message()).contains(csr.name());
  }

  @Test
  void aDenialIsAnErrorWithTheConditionsReasonAndMessage() {
    api.thenOnWait(f -> f.deny(csr.name(), "NotOurNode", "no such machine"));

    assertThatThrownBy(() -> requester.request(api, csr, TIMEOUT))
        .isInstanceOfSatisfying(
            RequestException.class, e -> assertThat(e.reason()).isEqualTo(Reason.DENIED))
        .hasMessageContaining(csr.name())
        .hasMessageContaining("reason: NotOurNode")
        .hasMessageContaining("message: no such machine");
    assertThat(events.events)
        .last()
        .isEqualTo(new CertificateEvent.Denied(csr.name(), "NotOurNode", "no such machine"));
  }

  @Test
  void aFailureByTheSignerIsAnErrorWithItsReason() {
    api.thenOnWait(f -> f.approve(csr.name()))
        .thenOnWait(f -> f.fail(csr.name(), "SignerValidationFailure", "bad usages"));

    assertThatThrownBy(() -> requester.request(api, csr, TIMEOUT))
        .isInstanceOfSatisfying(
            RequestException.class, e -> assertThat(e.reason()).isEqualTo(Reason.FAILED))
        .hasMessageContaining("reason: SignerValidationFailure");
  }

  @Test
  void approvedButNotIssuedIsReportedOnceAndWaitedOn() throws Exception {
    api.thenOnWait(f -> f.approve(csr.name()));
    // Three waits in which nothing happens (each steps the clock by the poll period), then the
    // signer issues.
    api.thenOnWait(f -> clock.step(Duration.ofSeconds(30)))
        .thenOnWait(f -> clock.step(Duration.ofSeconds(30)))
        .thenOnWait(f -> f.issue(csr.name(), issued(Duration.ofMinutes(5), Duration.ofDays(1))));

    ClientCertificate cert = requester.request(api, csr, TIMEOUT);

    assertThat(cert).isNotNull();
    assertThat(events.reasons())
        .containsExactly(
            CertificateEvent.REQUESTED,
            CertificateEvent.APPROVED_NOT_ISSUED,
            CertificateEvent.ISSUED);
    assertThat(events.events.get(1).message()).contains(csr.name(), "approved", "issued");
  }

  @Test
  void aCertificateExpiredOnArrivalIsAnErrorNotACertificate() {
    // A 4-minute signing duration with the signer's 5-minute backdating.
    api.onCreate(
        c -> {
          api.approve(c.name());
          api.issue(c.name(), issued(Duration.ofMinutes(5), Duration.ofMinutes(4)));
        });

    assertThatThrownBy(() -> requester.request(api, csr, TIMEOUT))
        .isInstanceOfSatisfying(
            RequestException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.UNUSABLE);
              assertThat(e.reason().needsNewKey()).isTrue();
            })
        .hasMessageContaining("expired when it arrived");
    assertThat(events.reasons()).last().isEqualTo(CertificateEvent.UNUSABLE);
  }

  @Test
  void aCertificateNotYetValidBeyondTheSkewIsAnError() {
    api.onCreate(
        c -> {
          api.approve(c.name());
          Instant now = clock.instant();
          api.issue(
              c.name(),
              ca.issue(csr.pem(), now.plus(Duration.ofMinutes(10)), now.plus(Duration.ofDays(1))));
        });

    assertThatThrownBy(() -> requester.request(api, csr, TIMEOUT))
        .isInstanceOf(RequestException.class)
        .hasMessageContaining("is not valid until");
  }

  @Test
  void aPendingCsrOfTheSameKeyIsReusedNotFiledAgain() throws Exception {
    api.create(csr.name(), NodeCsr.create("n1", csr.key()).pem(), NodeCsr.SIGNER, NodeCsr.USAGES);
    api.thenOnWait(f -> f.approve(csr.name()))
        .thenOnWait(f -> f.issue(csr.name(), issued(Duration.ofMinutes(5), Duration.ofDays(1))));

    requester.request(api, csr, TIMEOUT);

    assertThat(api.all()).hasSize(1);
    assertThat(events.events.get(0))
        .isEqualTo(new CertificateEvent.Requested(csr.name(), true, CertificateKind.CLIENT.what()));
  }

  @Test
  void aCsrOfTheSameNameButAnotherKeyIsIncompatible() {
    api.create(
        csr.name(), NodeCsr.create("n1", NodeCsr.newKey()).pem(), NodeCsr.SIGNER, NodeCsr.USAGES);

    assertThatThrownBy(() -> requester.request(api, csr, TIMEOUT))
        .isInstanceOfSatisfying(
            RequestException.class, e -> assertThat(e.reason()).isEqualTo(Reason.INCOMPATIBLE))
        .hasMessageContaining("not compatible");
  }

  @Test
  void noApprovalWithinTheTimeoutIsATimeoutThatKeepsTheKey() {
    assertThatThrownBy(() -> requester.request(api, csr, Duration.ofMinutes(2)))
        .isInstanceOfSatisfying(
            RequestException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.TIMEOUT);
              assertThat(e.reason().needsNewKey()).isFalse();
            })
        .hasMessageContaining("to be approved");
    assertThat(api.calls().stream().filter(c -> c.startsWith("await")).count()).isEqualTo(4);
  }

  @Test
  void aDeletedCsrEndsTheWait() {
    api.thenOnWait(f -> f.delete(csr.name()));

    assertThatThrownBy(() -> requester.request(api, csr, TIMEOUT))
        .isInstanceOfSatisfying(
            RequestException.class, e -> assertThat(e.reason()).isEqualTo(Reason.DELETED))
        .hasMessageContaining("was deleted");
  }

  @Test
  void aRefusedCreateIsAnApiErrorWithItsCode() {
    api.failCreate(new ApiException(401, "Unauthorized"));

    assertThatThrownBy(() -> requester.request(api, csr, TIMEOUT))
        .isInstanceOfSatisfying(
            RequestException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.API);
              assertThat(((ApiException) e.getCause()).unauthorized()).isTrue();
            });
  }
}
