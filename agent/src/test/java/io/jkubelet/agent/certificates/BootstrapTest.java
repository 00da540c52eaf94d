package io.jkubelet.agent.certificates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.certificates.Bootstrap.BootstrapException;
import io.jkubelet.agent.certificates.Bootstrap.Outcome;
import io.jkubelet.agent.certificates.SigningRequests.ApiException;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Time;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bootstrap decision table, on files in a temporary directory and the fake CSR API. */
class BootstrapTest {
  @TempDir Path tmp;
  private final FakeClock clock = new FakeClock();
  private final List<Duration> sleeps = new ArrayList<>();
  private Runnable onSleep = () -> {};
  private final Time time =
      new Time(
          clock,
          d -> {
            sleeps.add(d);
            clock.step(d);
            onSleep.run();
          },
          new FakeSchedulers(clock));
  private final FakeSigningRequests api = new FakeSigningRequests(clock);
  private final FakeSigningClients clients = new FakeSigningClients(api);
  private final RecordingListener events = new RecordingListener();
  private final TestCa ca = new TestCa();
  private Path kubeconfig;
  private Path bootstrapKubeconfig;
  private Path certDir;

  @BeforeEach
  void files() throws Exception {
    kubeconfig = tmp.resolve("kubelet.conf");
    bootstrapKubeconfig = tmp.resolve("bootstrap-kubelet.conf");
    certDir = tmp.resolve("pki");
    Files.writeString(tmp.resolve("ca.crt"), Pem.encode(List.of(ca.cert)));
    Files.writeString(
        bootstrapKubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster:
            server: https://api.example:6443
            certificate-authority: ca.crt
        contexts:
        - name: b
          context: {cluster: c, user: tls-bootstrap-token-user}
        current-context: b
        users:
        - name: tls-bootstrap-token-user
          user: {token: abcdef.0123456789abcdef}
        """);
    // The signer: approves and issues a one-year certificate, backdated five minutes.
    api.onCreate(
        c -> {
          api.approve(c.name());
          Instant now = clock.instant().minus(Duration.ofMinutes(5));
          api.issue(c.name(), ca.issue(c.requestPem(), now, now.plus(Duration.ofDays(365))));
        });
  }

  private Bootstrap bootstrap(boolean rotate) {
    return new Bootstrap(
        CertificateOptions.of(kubeconfig, bootstrapKubeconfig, certDir, rotate, false),
        "n1",
        clients,
        time,
        events);
  }

  private ClientCertificate valid() {
    return ca.node(
        "n1", clock.instant().minus(Duration.ofDays(1)), clock.instant().plus(Duration.ofDays(30)));
  }

  private ClientCertificate expired() {
    return ca.node(
        "n1",
        clock.instant().minus(Duration.ofDays(30)),
        clock.instant().minus(Duration.ofDays(1)));
  }

  /** A kubeconfig naming the cert and key in files, or embedding them. */
  private void writeKubeconfig(ClientCertificate cert, boolean embedded) throws Exception {
    String certPem = Pem.encode(cert.chain());
    String keyPem = Pem.encode(cert.key());
    String user;
    if (embedded) {
      user = "client-certificate-data: " + b64(certPem) + "\n    client-key-data: " + b64(keyPem);
    } else {
      Files.writeString(tmp.resolve("own.crt"), certPem);
      Files.writeString(tmp.resolve("own.key"), keyPem);
      user = "client-certificate: own.crt\n    client-key: own.key";
    }
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: k
          cluster:
            server: https://own.example:6443
            certificate-authority-data: %s
        contexts:
        - name: k
          context: {cluster: k, user: u}
        current-context: k
        users:
        - name: u
          user:
            %s
        """
            .formatted(b64(Pem.encode(List.of(ca.cert))), user));
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.US_ASCII));
  }

  private KubeconfigFile.Contents written() throws Exception {
    return KubeconfigFile.read(kubeconfig);
  }

  @Test
  void aValidKubeconfigIsUsedAsItIs() throws Exception {
    ClientCertificate own = valid();
    writeKubeconfig(own, false);
    String before = Files.readString(kubeconfig);

    Bootstrap.Result r = bootstrap(true).load();

    assertThat(r.outcome()).isEqualTo(Outcome.KUBECONFIG_VALID);
    assertThat(r.certificate().orElseThrow().serial()).isEqualTo(own.serial());
    assertThat(Files.readString(kubeconfig)).isEqualTo(before);
    assertThat(api.calls()).isEmpty();
  }

  @Test
  void anExpiredKubeconfigWithAValidStoredCertificateIsRewrittenNotBootstrapped() throws Exception {
    writeKubeconfig(expired(), false);
    ClientCertificate stored =
        CertificateStore.files(certDir, "kubelet-client", clock).update(valid());

    Bootstrap.Result r = bootstrap(true).load();

    assertThat(r.outcome()).isEqualTo(Outcome.FROM_STORE);
    assertThat(api.calls()).as("no CSR is filed").isEmpty();
    KubeconfigFile.Contents c = written();
    assertThat(c.certificate().orElseThrow().serial()).isEqualTo(stored.serial());
    assertThat(Files.readString(kubeconfig))
        .contains("client-certificate: " + certDir.resolve("kubelet-client-current.pem"))
        .contains("client-key: " + certDir.resolve("kubelet-client-current.pem"));
    assertThat(c.cluster().server()).isEqualTo("https://api.example:6443");
  }

  @Test
  void withNothingValidACertificateIsRequestedWithTheBootstrapCredentials() throws Exception {
    writeKubeconfig(expired(), false);

    Bootstrap.Result r = bootstrap(false).load();

    assertThat(r.outcome()).isEqualTo(Outcome.BOOTSTRAPPED);
    assertThat(clients.opened).containsExactly("bootstrap " + bootstrapKubeconfig);
    assertThat(api.creates()).isEqualTo(1);
    assertThat(api.all().get(0).name()).startsWith("node-csr-");
    KubeconfigFile.Contents c = written();
    assertThat(c.cluster().server()).isEqualTo("https://api.example:6443");
    assertThat(c.cluster().caFile()).isEqualTo(tmp.resolve("ca.crt").toString());
    assertThat(c.embedded()).isFalse();
    assertThat(c.certificate().orElseThrow().serial())
        .isEqualTo(r.certificate().orElseThrow().serial());
    assertThat(Files.readString(kubeconfig))
        .contains("client-certificate: " + certDir.resolve("kubelet-client-current.pem"));
    assertThat(certDir.resolve("kubelet-client.key.tmp")).doesNotExist();
    assertThat(events.reasons())
        .containsExactly(CertificateEvent.REQUESTED, CertificateEvent.ISSUED);
  }

  @Test
  void withoutAKubeconfigAtAllTheNodeBootstraps() throws Exception {
    Bootstrap.Result r = bootstrap(true).load();

    assertThat(r.outcome()).isEqualTo(Outcome.BOOTSTRAPPED);
    assertThat(kubeconfig).exists();
  }

  @Test
  void anEmbeddedCertificateIsMovedIntoTheStoreWhenRotating() throws Exception {
    ClientCertificate own = valid();
    writeKubeconfig(own, true);

    Bootstrap.Result r = bootstrap(true).load();

    assertThat(r.outcome()).isEqualTo(Outcome.EMBEDDED_MOVED);
    assertThat(api.calls()).isEmpty();
    assertThat(
            CertificateStore.files(certDir, "kubelet-client", clock)
                .current()
                .orElseThrow()
                .serial())
        .isEqualTo(own.serial());
    KubeconfigFile.Contents c = written();
    assertThat(c.embedded()).isFalse();
    assertThat(c.cluster().server()).isEqualTo("https://own.example:6443");
    assertThat(c.cluster().caData()).contains("BEGIN CERTIFICATE");
    // Only the user's credentials changed: kubeadm's kubelet-finalize phase looks the user up by
    // the name it gave it.
    String pem = certDir.resolve("kubelet-client-current.pem").toString();
    assertThat(Files.readString(kubeconfig))
        .contains("- name: u\n  user:\n    client-certificate: " + pem)
        .contains("client-key: " + pem)
        .contains("current-context: k")
        .doesNotContain("client-certificate-data")
        .doesNotContain("client-key-data");
  }

  @Test
  void anEmbeddedCertificateStaysWithoutRotation() throws Exception {
    writeKubeconfig(valid(), true);

    assertThat(bootstrap(false).load().outcome()).isEqualTo(Outcome.KUBECONFIG_VALID);
    assertThat(certDir.resolve("kubelet-client-current.pem")).doesNotExist();
  }

  @Test
  void aMissingBootstrapKubeconfigIsAnErrorNamingIt() throws Exception {
    Files.delete(bootstrapKubeconfig);

    assertThatThrownBy(() -> bootstrap(false).load())
        .isInstanceOf(BootstrapException.class)
        .hasMessageContaining("unable to load bootstrap kubeconfig " + bootstrapKubeconfig);
  }

  @Test
  void aRefusedBootstrapTokenIsAnErrorNamingTheFile() {
    api.failCreate(new ApiException(401, "Unauthorized"));

    assertThatThrownBy(() -> bootstrap(false).load())
        .isInstanceOf(BootstrapException.class)
        .hasMessageContaining(bootstrapKubeconfig.toString())
        .hasMessageContaining("401");
  }

  @Test
  void aRetryAfterATimeoutWaitsOnTheSamePendingCsr() throws Exception {
    api.onCreate(c -> {}); // nobody approves
    Bootstrap b =
        new Bootstrap(
            new CertificateOptions(
                kubeconfig,
                bootstrapKubeconfig,
                certDir,
                false,
                false,
                Duration.ofMinutes(1),
                Duration.ofMinutes(1)),
            "n1",
            clients,
            time,
            events);
    assertThatThrownBy(b::load).hasMessageContaining("timed out");
    String name = api.all().get(0).name();
    assertThat(certDir.resolve("kubelet-client.key.tmp")).exists();
    api.thenOnWait(
        f -> {
          f.approve(name);
          Instant now = clock.instant();
          f.issue(name, ca.issue(f.all().get(0).requestPem(), now, now.plus(Duration.ofDays(1))));
        });

    Bootstrap.Result r = b.load();

    assertThat(r.outcome()).isEqualTo(Outcome.BOOTSTRAPPED);
    assertThat(api.all()).hasSize(1);
    assertThat(api.calls())
        .filteredOn(c -> c.startsWith("create"))
        .containsExactly("create " + name, "create " + name);
  }

  @Test
  void loadRetryingBacksOffUntilItSucceeds() throws Exception {
    clients.bootstrapError = new IllegalStateException("no such file");
    // The third attempt finds the file usable.
    onSleep =
        () -> {
          if (sleeps.size() == 2) {
            clients.bootstrapError = null;
          }
        };

    Bootstrap.Result r = bootstrap(false).loadRetrying();

    assertThat(r.outcome()).isEqualTo(Outcome.BOOTSTRAPPED);
    assertThat(sleeps).hasSize(2);
    assertThat(sleeps.get(0)).isBetween(Duration.ofSeconds(2), Duration.ofMillis(2200));
    assertThat(sleeps.get(1)).isBetween(Duration.ofSeconds(4), Duration.ofMillis(4400));
    assertThat(events.reasons())
        .startsWith(CertificateEvent.REQUEST_FAILED, CertificateEvent.REQUEST_FAILED);
  }
}
