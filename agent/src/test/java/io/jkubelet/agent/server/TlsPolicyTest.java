package io.jkubelet.agent.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.server.auth.Authenticator;
import io.jkubelet.agent.server.auth.Authorizer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tlsMinVersion} and {@code tlsCipherSuites}: upstream's names in Java's, and real TLS
 * handshakes with the kubelet API, which refuse a version below the least one and a suite not
 * listed.
 */
@Timeout(60)
class TlsPolicyTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-03-01T00:00:00Z"), ZoneOffset.UTC);
  private static final String ALLOWED = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256";
  private static final String OTHER = "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384";

  @TempDir Path dir;
  private KubeletServer server;
  private ServingCerts certs;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop();
    }
  }

  @Test
  void upstreamsDefaultIsTls12AndUpWithTheEnginesSuites() {
    assertThat(TlsPolicy.DEFAULT.protocols()).containsExactly("TLSv1.2", "TLSv1.3");
    assertThat(TlsPolicy.DEFAULT.ciphers()).isEmpty();
    assertThat(TlsPolicy.of("VersionTLS10", List.of()).protocols())
        .containsExactly("TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3");
    assertThat(TlsPolicy.of("VersionTLS13", List.of()).protocols()).containsExactly("TLSv1.3");
  }

  @Test
  void goNamesBecomeJavasAndTls13KeepsItsOwnSuites() {
    TlsPolicy p =
        TlsPolicy.of(
            "",
            List.of(
                "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
                "TLS_RSA_WITH_RC4_128_SHA",
                "TLS_AES_128_GCM_SHA256"));
    assertThat(p.ciphers())
        .containsExactly(
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_RSA_WITH_RC4_128_SHA",
            "SSL_RSA_WITH_RC4_128_SHA",
            "TLS_AES_128_GCM_SHA256",
            "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256");
  }

  @Test
  void aVersionBelowTheLeastIsRefused() throws Exception {
    start(TlsPolicy.of("VersionTLS13", List.of()));
    assertThatThrownBy(() -> handshake("TLSv1.2", null)).isInstanceOf(SSLException.class);
    assertThat(handshake("TLSv1.3", null)).isEqualTo("TLSv1.3");
  }

  @Test
  void aCipherSuiteNotListedIsRefused() throws Exception {
    start(TlsPolicy.of("VersionTLS12", List.of(ALLOWED)));
    assertThatThrownBy(() -> handshake("TLSv1.2", OTHER)).isInstanceOf(SSLException.class);
    assertThat(handshake("TLSv1.2", ALLOWED)).isEqualTo("TLSv1.2 " + ALLOWED);
  }

  @Test
  void withoutAListTheEnginesSuitesServe() throws Exception {
    start(TlsPolicy.DEFAULT);
    assertThat(handshake("TLSv1.2", OTHER)).isEqualTo("TLSv1.2 " + OTHER);
    assertThat(handshake("TLSv1.3", null)).isEqualTo("TLSv1.3");
  }

  private void start(TlsPolicy tls) throws Exception {
    certs = ServingCerts.selfSigned(dir.resolve("pki"), "node-a", List.of(), CLOCK);
    server =
        new KubeletServer(
            new ServerOptions("127.0.0.1", 0, certs, List.of(), "node-a", null, tls),
            new Authenticator(true, Optional.empty()),
            Authorizer.ALWAYS_ALLOW,
            List.of());
    server.start();
  }

  /**
   * A handshake offering only {@code protocol} (and only {@code cipher}, unless null); returns the
   * protocol agreed, and the suite when one was asked for.
   */
  private String handshake(String protocol, String cipher) throws Exception {
    var ctx = TestPki.clientContext(null, certs.chain().get(0));
    try (SSLSocket s =
        (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", server.port())) {
      s.setEnabledProtocols(new String[] {protocol});
      if (cipher != null) {
        s.setEnabledCipherSuites(new String[] {cipher});
      }
      s.setSoTimeout(10_000);
      s.startHandshake();
      var session = s.getSession();
      return cipher == null
          ? session.getProtocol()
          : session.getProtocol() + " " + session.getCipherSuite();
    }
  }
}
