package io.jkubelet.agent.certificates;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CertificateKeyManagerTest {
  private final TestCa ca = new TestCa();
  private final Instant now = Instant.now();
  private final ClientCertificate first =
      ca.node("n1", now.minusSeconds(60), now.plusSeconds(3600));
  private final ClientCertificate second =
      ca.node("n1", now.minusSeconds(60), now.plusSeconds(7200));
  private final AtomicReference<Optional<ClientCertificate>> current =
      new AtomicReference<>(Optional.of(first));
  private final CertificateKeyManager keys = new CertificateKeyManager(current::get);

  @Test
  void itPresentsWhateverIsCurrentAtEachHandshake() {
    String a = keys.chooseEngineClientAlias(new String[] {"RSA", "EC"}, null, null);
    assertThat(keys.getCertificateChain(a)).containsExactly(first.leaf());
    assertThat(keys.getPrivateKey(a)).isEqualTo(first.key());

    current.set(Optional.of(second));
    String b = keys.chooseEngineClientAlias(new String[] {"EC_EC"}, null, null);

    assertThat(b).isNotEqualTo(a);
    assertThat(keys.getCertificateChain(b)).containsExactly(second.leaf());
    assertThat(keys.getPrivateKey(b)).isEqualTo(second.key());
    assertThat(keys.getCertificateChain(a))
        .as("the previous one, for a racing handshake")
        .containsExactly(first.leaf());
  }

  @Test
  void noCertificateOrAnUnwantedKeyTypeChoosesNone() {
    assertThat(keys.chooseEngineClientAlias(new String[] {"RSA"}, null, null)).isNull();
    current.set(Optional.empty());
    assertThat(keys.chooseClientAlias(new String[] {"EC"}, null, null)).isNull();
  }

  /** A TLS server on loopback that asks for a client certificate and reports each one it gets. */
  @Test
  void aNewConnectionAfterARotationAuthenticatesWithTheNewCertificate() throws Exception {
    ClientCertificate server = ca.node("server", now.minusSeconds(60), now.plusSeconds(3600));
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry("s", server.key(), new char[0], new X509Certificate[] {server.leaf()});
    KeyManagerFactory kmf = KeyManagerFactory.getInstance("PKIX");
    kmf.init(ks, new char[0]);
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", ca.cert);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
    tmf.init(trust);
    SSLContext serverCtx = SSLContext.getInstance("TLS");
    serverCtx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    SSLContext clientCtx = SSLContext.getInstance("TLS");
    clientCtx.init(new KeyManager[] {keys}, new TrustManager[] {tmf.getTrustManagers()[0]}, null);

    try (SSLServerSocket listener =
        (SSLServerSocket) serverCtx.getServerSocketFactory().createServerSocket(0)) {
      listener.setNeedClientAuth(true);
      assertThat(peerOf(listener, clientCtx)).isEqualTo(first.leaf());
      current.set(Optional.of(second));
      // NOTE: a resumed TLS session keeps the identity it was made with; the client's sessions are
      // forgotten on rotation (the wiring's job), so the next connection makes a full handshake.
      var sessions = clientCtx.getClientSessionContext();
      for (byte[] id : java.util.Collections.list(sessions.getIds())) {
        var session = sessions.getSession(id);
        if (session != null) {
          session.invalidate();
        }
      }
      assertThat(peerOf(listener, clientCtx)).isEqualTo(second.leaf());
    }
  }

  private static X509Certificate peerOf(SSLServerSocket listener, SSLContext clientCtx)
      throws Exception {
    CompletableFuture<X509Certificate> peer =
        CompletableFuture.supplyAsync(
            () -> {
              try (SSLSocket s = (SSLSocket) listener.accept()) {
                InputStream in = s.getInputStream();
                in.read();
                X509Certificate c = (X509Certificate) s.getSession().getPeerCertificates()[0];
                s.getOutputStream().write(1);
                return c;
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    try (SSLSocket c =
        (SSLSocket)
            clientCtx.getSocketFactory().createSocket("127.0.0.1", listener.getLocalPort())) {
      OutputStream out = c.getOutputStream();
      out.write(1);
      out.flush();
      c.getInputStream().read();
    }
    return peer.get(30, TimeUnit.SECONDS);
  }
}
