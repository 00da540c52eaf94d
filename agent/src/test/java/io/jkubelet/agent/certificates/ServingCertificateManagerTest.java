package io.jkubelet.agent.certificates;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.certificates.SigningRequests.Csr;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Time;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.Extensions;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The serving certificate's manager ({@link CertificateManager#serving}) on fake schedulers, a fake
 * clock and the fake CSR API: what it requests, for which names, and what it does when the CSR is
 * pending, denied, or issued expired.
 */
class ServingCertificateManagerTest {
  private static final Duration LIFETIME = Duration.ofHours(100);
  private static final Sans FIRST = new Sans(List.of("node-a"), List.of("10.0.0.5"));
  private static final Sans SECOND = new Sans(List.of("node-a"), List.of("10.0.0.6"));
  @TempDir Path certDir;
  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final Time time = new Time(clock, d -> clock.step(d), schedulers);
  private final FakeSigningRequests api = new FakeSigningRequests(clock);
  private final RecordingListener events = new RecordingListener();
  private final TestCa ca = new TestCa();
  private final AtomicReference<Optional<Sans>> addresses =
      new AtomicReference<>(Optional.of(FIRST));

  private CertificateManager manager() {
    return RotatingCertificateManager.serving(
        CertificateOptions.of(certDir.resolve("kubelet.conf"), null, certDir, false, true),
        "node-a",
        addresses::get,
        api,
        time,
        events);
  }

  /** An admin approves and the signer issues a {@link #LIFETIME} certificate, backdated 5 min. */
  private void approvedAndIssued(Csr c, Duration lifetime) {
    api.approve(c.name());
    Instant from = clock.instant().minus(Duration.ofMinutes(5));
    api.issue(c.name(), ca.issue(c.requestPem(), from, from.plus(lifetime)));
  }

  private static Sans requested(Csr c) throws Exception {
    var csr = NodeCsr.parse(c.requestPem());
    var attrs = csr.getAttributes(PKCSObjectIdentifiers.pkcs_9_at_extensionRequest);
    Extensions ext = Extensions.getInstance(attrs[0].getAttrValues().getObjectAt(0));
    GeneralNames names = GeneralNames.fromExtensions(ext, Extension.subjectAlternativeName);
    List<String> dns = new java.util.ArrayList<>();
    List<String> ips = new java.util.ArrayList<>();
    for (GeneralName n : names.getNames()) {
      if (n.getTagNo() == GeneralName.dNSName) {
        dns.add(n.getName().toString());
      } else if (n.getTagNo() == GeneralName.iPAddress) {
        byte[] b = org.bouncycastle.asn1.DEROctetString.getInstance(n.getName()).getOctets();
        ips.add(java.net.InetAddress.getByAddress(b).getHostAddress());
      }
    }
    return new Sans(dns, ips);
  }

  @Test
  void theServingCsrIsForTheKubeletServingSignerWithTheNodesAddresses() throws Exception {
    api.thenOnWait(a -> approvedAndIssued(a.all().get(0), LIFETIME));
    var m = manager();
    m.start();
    assertThat(m.current()).isEmpty();

    schedulers.runDue();

    Csr csr = api.all().get(0);
    assertThat(csr.signerName()).isEqualTo("kubernetes.io/kubelet-serving");
    assertThat(csr.usages())
        .containsExactly("digital signature", "key encipherment", "server auth");
    assertThat(NodeCsr.parse(csr.requestPem()).getSubject().toString())
        .isEqualTo("O=system:nodes,CN=system:node:node-a");
    assertThat(requested(csr)).isEqualTo(FIRST);
    // Pending until approved: a Warning that names the CSR.
    CertificateEvent pending =
        events.events.stream()
            .filter(e -> e.reason().equals(CertificateEvent.PENDING))
            .findFirst()
            .orElseThrow();
    assertThat(pending.warning()).isTrue();
    assertThat(pending.message()).contains(csr.name(), "kubectl certificate approve");

    ClientCertificate issued = m.current().orElseThrow();
    assertThat(Sans.of(issued.leaf())).isEqualTo(FIRST);
    assertThat(Files.isSymbolicLink(certDir.resolve("kubelet-server-current.pem"))).isTrue();
    assertThat(Files.readSymbolicLink(certDir.resolve("kubelet-server-current.pem")).toString())
        .matches(".*/kubelet-server-\\d{4}(-\\d\\d){5}\\.pem");
    assertThat(events.events)
        .anySatisfy(e -> assertThat(e.message()).startsWith("Rotated the serving certificate"));
    m.stop();
  }

  @Test
  void nothingIsRequestedUntilTheNodeHasAddresses() {
    addresses.set(Optional.empty());
    api.onCreate(c -> approvedAndIssued(c, LIFETIME));
    var m = manager();
    m.start();
    schedulers.advance(Duration.ofSeconds(30));
    assertThat(api.creates()).isZero();

    addresses.set(Optional.of(FIRST));
    schedulers.advance(RotatingCertificateManager.TEMPLATE_CHECK);

    assertThat(api.creates()).isEqualTo(1);
    assertThat(m.current()).isPresent();
    m.stop();
  }

  @Test
  void newAddressesAreRequestedAgainWithANewKey() throws Exception {
    api.onCreate(c -> approvedAndIssued(c, LIFETIME));
    var m = manager();
    m.start();
    schedulers.runDue();
    ClientCertificate first = m.current().orElseThrow();
    schedulers.advance(Duration.ofMinutes(10));
    assertThat(api.creates()).isEqualTo(1);

    addresses.set(Optional.of(SECOND));
    schedulers.advance(RotatingCertificateManager.TEMPLATE_CHECK);

    assertThat(api.creates()).isEqualTo(2);
    ClientCertificate second = m.current().orElseThrow();
    assertThat(Sans.of(second.leaf())).isEqualTo(SECOND);
    assertThat(second.leaf().getPublicKey()).isNotEqualTo(first.leaf().getPublicKey());
    m.stop();
  }

  @Test
  void aPendingCsrForOldAddressesIsGivenUpForOneWithTheNewOnes() throws Exception {
    // Nobody approves the first CSR; the Node's address changes while the node waits on it.
    api.thenOnWait(a -> addresses.set(Optional.of(SECOND)));
    var m = manager();
    m.start();
    schedulers.runDue();
    assertThat(api.creates()).isEqualTo(1);
    assertThat(events.reasons()).contains(CertificateEvent.REQUEST_FAILED);

    api.onCreate(c -> approvedAndIssued(c, LIFETIME));
    schedulers.advance(Duration.ofSeconds(3));

    assertThat(api.creates()).isEqualTo(2);
    assertThat(
            requested(
                api.all().stream()
                    .filter(c -> !c.certificatePem().isEmpty())
                    .findFirst()
                    .orElseThrow()))
        .isEqualTo(SECOND);
    assertThat(Sans.of(m.current().orElseThrow().leaf())).isEqualTo(SECOND);
    m.stop();
  }

  @Test
  void aDeniedCsrIsAWarningWithItsReasonAndANewRequestFollowsWithBackoff() {
    api.onCreate(c -> api.deny(c.name(), "NotOurNode", "no such machine"));
    var m = manager();
    m.start();
    schedulers.runDue();

    CertificateEvent denied =
        events.events.stream()
            .filter(e -> e.reason().equals(CertificateEvent.DENIED))
            .findFirst()
            .orElseThrow();
    assertThat(denied.warning()).isTrue();
    assertThat(denied.message()).contains(api.all().get(0).name(), "NotOurNode", "no such machine");
    assertThat(events.events)
        .anySatisfy(e -> assertThat(e.message()).startsWith("Unable to get a serving certificate"));
    assertThat(api.creates()).isEqualTo(1);

    schedulers.advance(Duration.ofSeconds(3));
    assertThat(api.creates()).as("retried after ~2 s, with a new key").isEqualTo(2);
    assertThat(api.all().stream().map(Csr::name).distinct()).hasSize(2);
    m.stop();
  }

  @Test
  void aCertificateThatArrivesExpiredIsAnErrorAndRetriedWithAGrowingDelay() {
    // A 4-minute signing duration, backdated 5 minutes: expired when it arrives.
    api.onCreate(c -> approvedAndIssued(c, Duration.ofMinutes(4)));
    var m = manager();
    m.start();
    schedulers.runDue();

    assertThat(events.reasons()).contains(CertificateEvent.UNUSABLE);
    assertThat(
            events.events.stream()
                .filter(e -> e.reason().equals(CertificateEvent.UNUSABLE))
                .findFirst()
                .orElseThrow()
                .message())
        .contains("had expired when it arrived");
    assertThat(m.current()).isEmpty();
    schedulers.advance(Duration.ofSeconds(3));
    assertThat(api.creates()).isEqualTo(2);
    schedulers.advance(Duration.ofSeconds(3));
    assertThat(api.creates()).as("the second delay is about 4 s").isEqualTo(2);
    schedulers.advance(Duration.ofSeconds(2));
    assertThat(api.creates()).isEqualTo(3);
    m.stop();
  }

  @Test
  void theServingCertificateIsRenewedAt70To90PercentOfItsLifetime() {
    api.onCreate(c -> approvedAndIssued(c, LIFETIME));
    var m = manager();
    m.start();
    schedulers.runDue();
    ClientCertificate first = m.current().orElseThrow();
    Instant latest = first.notBefore().plus(LIFETIME.multipliedBy(9).dividedBy(10));

    schedulers.advance(Duration.between(clock.instant(), latest).plusSeconds(1));

    assertThat(api.creates()).isEqualTo(2);
    assertThat(m.current().orElseThrow().serial()).isNotEqualTo(first.serial());
    m.stop();
  }

  @Test
  void sansAreReadFromTheNodesAddressesAsUpstream() {
    var addresses =
        List.of(
            address("InternalIP", "10.0.0.5"),
            address("ExternalIP", "not-an-ip"),
            address("Hostname", "node-a"),
            address("Hostname", "10.0.0.5"),
            address("InternalDNS", "node-a.internal"),
            address("ExternalIP", "2001:db8:0:0:0:0:0:1"),
            address("InternalIP", ""));
    assertThat(Sans.fromNodeAddresses(addresses))
        .isEqualTo(
            new Sans(List.of("node-a", "node-a.internal"), List.of("10.0.0.5", "2001:db8::1")));
  }

  private static io.fabric8.kubernetes.api.model.NodeAddress address(String type, String a) {
    return new io.fabric8.kubernetes.api.model.NodeAddress(a, type);
  }
}
