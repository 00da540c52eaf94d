package io.jkubelet.agent.certificates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.certificates.SigningRequests.ApiException;
import io.jkubelet.agent.certificates.SigningRequests.Condition;
import io.jkubelet.agent.certificates.SigningRequests.Csr;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@link SigningRequests} promises, run against the fake ({@link FakeSigningRequestsTest}) and
 * against a real API server ({@link ApiSigningRequestsApiTest}). The CSRs here are for the {@code
 * kubernetes.io/kube-apiserver-client} signer, which no controller approves by itself, so that the
 * approvals and denials are the test's own.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class SigningRequestsContract {
  static final String SIGNER = "kubernetes.io/kube-apiserver-client";
  static final List<String> USAGES =
      List.of("digital signature", "key encipherment", "client auth");

  /** The implementation under test; each test may call it several times for the same one. */
  protected abstract SigningRequests api();

  /** Approves the CSR as an administrator would. */
  protected abstract void approve(String name);

  protected abstract void deny(String name, String reason, String message);

  /** Writes {@code status.certificate}, unless a signer already has (the CSR is approved). */
  protected abstract void issue(String name, String certificatePem);

  /** A name no other test uses; implementations delete what they made under it afterwards. */
  protected String uniqueName() {
    return "jkubelet-contract-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private final NodeCsr request = NodeCsr.create("contract-node", NodeCsr.newKey());

  private Csr create(String name) {
    return api().create(name, request.pem(), SIGNER, USAGES);
  }

  @Test
  void aCreatedCsrReadsBackAsSent() throws Exception {
    String name = uniqueName();
    Csr created = create(name);

    Csr read = api().get(name).orElseThrow();
    assertThat(created.uid()).isNotBlank().isEqualTo(read.uid());
    assertThat(NodeCsr.parse(read.requestPem()).getEncoded())
        .isEqualTo(NodeCsr.parse(request.pem()).getEncoded());
    assertThat(read.signerName()).isEqualTo(SIGNER);
    assertThat(read.usages()).containsExactlyInAnyOrderElementsOf(USAGES);
    assertThat(read.conditions()).isEmpty();
    assertThat(read.certificatePem()).isEmpty();
  }

  @Test
  void aServingRequestReadsBackWithItsSignerUsagesAndNames() throws Exception {
    String name = uniqueName();
    Sans sans = new Sans(List.of("contract-node"), List.of("10.0.0.5", "::1"));
    NodeCsr serving =
        NodeCsr.create(CertificateKind.SERVING, "contract-node", sans, NodeCsr.newKey());
    api()
        .create(
            name,
            serving.pem(),
            CertificateKind.SERVING.signer(),
            CertificateKind.SERVING.usages());

    Csr read = api().get(name).orElseThrow();
    assertThat(read.signerName()).isEqualTo("kubernetes.io/kubelet-serving");
    assertThat(read.usages())
        .containsExactlyInAnyOrder("digital signature", "key encipherment", "server auth");
    assertThat(serving.incompatibility(read)).isEmpty();
    var issued =
        Pem.certificates(
            new TestCa()
                .issue(
                    read.requestPem(),
                    Instant.now().minusSeconds(60),
                    Instant.now().plusSeconds(60)));
    assertThat(Sans.of(issued.get(0))).isEqualTo(sans);
  }

  @Test
  void aSecondCreateOfTheSameNameIsAlreadyExists() {
    String name = uniqueName();
    create(name);

    assertThatThrownBy(() -> create(name))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.alreadyExists()).isTrue());
  }

  @Test
  void anUnknownNameReadsAsEmpty() {
    assertThat(api().get(uniqueName())).isEmpty();
  }

  @Test
  void anApprovalEndsAWaitFromTheVersionBeforeIt() throws Exception {
    String name = uniqueName();
    String before = create(name).resourceVersion();
    approve(name);

    api().awaitChange(name, before, Duration.ofSeconds(30));

    assertThat(api().get(name).orElseThrow().condition(Condition.APPROVED)).isPresent();
  }

  @Test
  void aDenialCarriesItsReasonAndMessage() {
    String name = uniqueName();
    create(name);
    deny(name, "TestDenied", "not this one");

    Condition denied = api().get(name).orElseThrow().condition(Condition.DENIED).orElseThrow();
    assertThat(denied.reason()).isEqualTo("TestDenied");
    assertThat(denied.message()).isEqualTo("not this one");
  }

  @Test
  void anIssuedCertificateReadsAsPemForTheRequestsKey() throws Exception {
    String name = uniqueName();
    create(name);
    approve(name);
    Instant now = Instant.now();
    issue(name, new TestCa().issue(request.pem(), now.minusSeconds(300), now.plusSeconds(3600)));

    Csr issued = api().get(name).orElseThrow();
    var chain = Pem.certificates(issued.certificatePem());
    assertThat(chain.get(0).getPublicKey().getEncoded())
        .isEqualTo(request.key().getPublic().getEncoded());
  }

  @Test
  void aWaitWithoutAChangeEndsByItsLimit() throws Exception {
    String name = uniqueName();
    String version = create(name).resourceVersion();

    api().awaitChange(name, version, Duration.ofSeconds(1));

    assertThat(api().get(name)).isPresent();
  }
}
