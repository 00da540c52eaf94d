package io.jkubelet.agent.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.util.FakeClock;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client chains the kubelet API accepted are not verified again while valid: the JDK's PKIX
 * check runs once per chain, and again only once the chain has lapsed; a refused chain is checked
 * (and refused) every time.
 */
class VerifiedChainsTest {
  private TestPki ca;
  private final FakeClock clock = new FakeClock(Instant.parse("2026-12-01T00:00:00Z"));
  private final AtomicInteger verified = new AtomicInteger();
  private VerifiedChains chains;

  @BeforeEach
  void setUp() throws Exception {
    ca = new TestPki("test-ca");
    chains = new VerifiedChains(counting(VerifiedChains.pkix(List.of(ca.ca))), clock);
  }

  private void check(TestPki.Client c) throws CertificateException {
    chains.checkClientTrusted(new X509Certificate[] {c.cert()}, "RSA", (SSLEngine) null);
  }

  @Test
  void aChainOfTheClientCaIsVerifiedOnceThenRemembered() throws Exception {
    TestPki.Client apiserver = ca.client("CN=kube-apiserver-kubelet-client,O=system:masters");
    check(apiserver);
    check(apiserver);
    check(apiserver);
    assertThat(verified).hasValue(1);
    assertThat(chains.size()).isEqualTo(1);
  }

  @Test
  void eachChainIsVerifiedOnItsOwn() throws Exception {
    check(ca.client("CN=alice"));
    check(ca.client("CN=bob"));
    check(ca.client("CN=alice")); // a new certificate: other bytes than the first alice's
    assertThat(verified).hasValue(3);
  }

  @Test
  void aChainOfAnotherCaIsRefusedEveryTime() throws Exception {
    TestPki.Client stranger = new TestPki("other-ca").client("CN=mallory,O=system:masters");
    assertThatThrownBy(() -> check(stranger)).isInstanceOf(CertificateException.class);
    assertThatThrownBy(() -> check(stranger)).isInstanceOf(CertificateException.class);
    assertThat(verified).hasValue(2);
    assertThat(chains.size()).isZero();
  }

  @Test
  void aRememberedChainIsVerifiedAgainOnceItHasLapsed() throws Exception {
    TestPki.Client c = ca.client("CN=scraper");
    check(c);
    clock.set(TestPki.NOT_AFTER.plus(Duration.ofSeconds(1)));
    check(c); // the PKIX check (on the system's clock here) accepts it again
    assertThat(verified).hasValue(2);
    clock.set(TestPki.NOT_BEFORE.minus(Duration.ofSeconds(1)));
    check(c);
    assertThat(verified).hasValue(3);
  }

  @Test
  void noMoreThanItsCapacityIsRemembered() throws Exception {
    for (int i = 0; i <= VerifiedChains.CAPACITY; i++) {
      check(ca.client("CN=client-" + i));
    }
    assertThat(chains.size()).isEqualTo(VerifiedChains.CAPACITY);
  }

  /** The delegate, counting the client checks it was asked for. */
  private X509ExtendedTrustManager counting(X509ExtendedTrustManager d) {
    return new X509ExtendedTrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
          throws CertificateException {
        verified.incrementAndGet();
        d.checkClientTrusted(chain, authType, socket);
      }

      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
          throws CertificateException {
        verified.incrementAndGet();
        d.checkClientTrusted(chain, authType, engine);
      }

      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType)
          throws CertificateException {
        verified.incrementAndGet();
        d.checkClientTrusted(chain, authType);
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
          throws CertificateException {
        d.checkServerTrusted(chain, authType, socket);
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
          throws CertificateException {
        d.checkServerTrusted(chain, authType, engine);
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType)
          throws CertificateException {
        d.checkServerTrusted(chain, authType);
      }

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return d.getAcceptedIssuers();
      }
    };
  }
}
