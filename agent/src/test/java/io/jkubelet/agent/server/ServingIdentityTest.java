package io.jkubelet.agent.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.certificates.CertificateManager;
import io.jkubelet.agent.certificates.ClientCertificate;
import io.jkubelet.agent.server.auth.Authenticator;
import io.jkubelet.agent.server.auth.Authorizer;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Time;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the kubelet API presents, over real TLS handshakes: the self-signed certificate until the
 * CSR API's arrives, then that one without a restart; the self-signed one renewed before it
 * expires.
 */
@Timeout(60)
class ServingIdentityTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  @TempDir Path dir;
  private final FakeClock clock = new FakeClock(T0);
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final Time time = new Time(clock, d -> clock.step(d), schedulers);
  private final AtomicReference<Optional<ClientCertificate>> issued =
      new AtomicReference<>(Optional.empty());
  private ServingIdentity identity;
  private KubeletServer server;

  /** A CSR API that has what {@link #issued} holds. */
  private final CertificateManager manager =
      new CertificateManager() {
        @Override
        public Optional<ClientCertificate> current() {
          return issued.get();
        }

        @Override
        public void onRotated(Consumer<ClientCertificate> listener) {}

        @Override
        public void start() {}

        @Override
        public void stop() {}

        @Override
        public Health healthy() {
          return Health.OK;
        }
      };

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop();
    }
    if (identity != null) {
      identity.stop();
    }
  }

  private void start(CertificateManager m) {
    identity = new ServingIdentity(null, dir, "node-a", List.of("127.0.0.1"), m, time);
    identity.start();
    server =
        new KubeletServer(
            new ServerOptions(
                "127.0.0.1",
                0,
                null,
                List.of(),
                "node-a",
                identity.keyManager(),
                TlsPolicy.DEFAULT),
            new Authenticator(true, Optional.empty()),
            Authorizer.ALWAYS_ALLOW,
            List.of());
    server.start();
  }

  /** The certificate a new TLS connection (no session to resume) is shown. */
  private X509Certificate presented() throws Exception {
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, new TrustManager[] {new TrustAll()}, new SecureRandom());
    try (SSLSocket s =
        (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", server.port())) {
      s.startHandshake();
      return (X509Certificate) s.getSession().getPeerCertificates()[0];
    }
  }

  @Test
  void theSelfSignedCertificateIsPresentedUntilTheIssuedOneArrivesThenThatOneWithoutARestart()
      throws Exception {
    start(manager);
    X509Certificate before = presented();
    assertThat(before.getIssuerX500Principal()).isEqualTo(before.getSubjectX500Principal());
    assertThat(ServingCerts.readCerts(dir.resolve("kubelet.crt")).get(0)).isEqualTo(before);

    TestPki ca = new TestPki("cluster-ca");
    TestPki.Client node = ca.client("CN=system:node:node-a,O=system:nodes");
    issued.set(Optional.of(new ClientCertificate(List.of(node.cert()), node.key().getPrivate())));

    X509Certificate after = presented();
    assertThat(after).isEqualTo(node.cert());
    assertThat(after.getIssuerX500Principal()).isNotEqualTo(after.getSubjectX500Principal());

    issued.set(Optional.empty()); // expired, say: back to the self-signed one
    assertThat(presented()).isEqualTo(before);
  }

  @Test
  void aSelfSignedCertificateIsRenewedBeforeItExpires() throws Exception {
    start(null);
    X509Certificate first = presented();

    schedulers.advance(Duration.ofDays(300)); // past 80 % of its year

    X509Certificate second = presented();
    assertThat(second.getSerialNumber()).isNotEqualTo(first.getSerialNumber());
    assertThat(second.getNotAfter().toInstant()).isAfter(first.getNotAfter().toInstant());
    assertThat(ServingCerts.readCerts(dir.resolve("kubelet.crt")).get(0)).isEqualTo(second);
  }

  @Test
  void aSelfSignedCertificateFoundDueOrExpiredAtStartIsMadeAgain() throws Exception {
    Clock then = Clock.fixed(T0.minus(Duration.ofDays(400)), ZoneOffset.UTC);
    X509Certificate old =
        ServingCerts.makeSelfSigned(dir, "node-a", List.of(), then).chain().get(0);
    assertThat(Files.exists(dir.resolve("kubelet.crt"))).isTrue();

    start(null);

    X509Certificate now = presented();
    assertThat(now.getSerialNumber()).isNotEqualTo(old.getSerialNumber());
    assertThat(now.getNotAfter().toInstant()).isAfter(T0);
  }

  private static final class TrustAll implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
