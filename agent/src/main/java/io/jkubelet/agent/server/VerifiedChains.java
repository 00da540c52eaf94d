package io.jkubelet.agent.server;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Verifies client certificates against the client CAs, as the JDK's PKIX trust manager does, and
 * remembers the chains it accepted, so that a client that connects again with the same chain (the
 * API server for every exec, attach and port-forward; a metrics scraper on each scrape) is not
 * verified again. A remembered chain is accepted only while every certificate in it is within its
 * validity; a chain that fails is never remembered, so it is verified (and refused) each time.
 *
 * <p>Why: the PKIX check parses the chain and builds and validates its path on every handshake, in
 * the TLS engine's verify callback on an event loop: a few tenths of a millisecond of each new
 * connection on an idle node, about 1.8 ms on one with 110 pods (docs/performance.md), and for TLS
 * 1.3 the client sees it in its first request. Upstream's Go server verifies each time too, in
 * compiled code.
 *
 * <p>What is not re-checked for a remembered chain: the client CAs (fixed for this trust manager's
 * life: a new CA file builds a new server) and the JDK's algorithm constraints (the same chain
 * meets the same constraints; the handshake's own signature algorithms are the TLS engine's).
 * Server certificates are never checked here.
 *
 * <p>Thread-safe: {@code accepted} is guarded by its own monitor; the delegate is thread-safe.
 */
final class VerifiedChains extends X509ExtendedTrustManager {
  /** How many chains are remembered: clients of a kubelet are few (API servers, scrapers). */
  static final int CAPACITY = 64;

  private final X509ExtendedTrustManager delegate;
  private final Clock clock;
  private final Map<Key, Validity> accepted =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Validity> eldest) {
          return size() > CAPACITY;
        }
      };

  /**
   * @param delegate verifies what is not remembered: the PKIX check ({@link #pkix}); a test's own
   * @param clock the time validity is checked against: the delegate's (the system's for PKIX)
   */
  VerifiedChains(X509ExtendedTrustManager delegate, Clock clock) {
    this.delegate = delegate;
    this.clock = clock;
  }

  /** Over the JDK's PKIX trust manager for {@code clientCAs}, on the system's clock. */
  static VerifiedChains of(List<X509Certificate> clientCAs) throws GeneralSecurityException {
    return new VerifiedChains(pkix(clientCAs), Clock.systemUTC());
  }

  /** The JDK's PKIX trust manager for {@code clientCAs}. */
  static X509ExtendedTrustManager pkix(List<X509Certificate> clientCAs)
      throws GeneralSecurityException {
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      for (int i = 0; i < clientCAs.size(); i++) {
        store.setCertificateEntry("ca-" + i, clientCAs.get(i));
      }
      TrustManagerFactory f = TrustManagerFactory.getInstance("PKIX");
      f.init(store);
      for (TrustManager tm : f.getTrustManagers()) {
        if (tm instanceof X509ExtendedTrustManager x) {
          return x;
        }
      }
      throw new GeneralSecurityException("the PKIX trust manager factory made no X509 manager");
    } catch (java.io.IOException e) {
      throw new GeneralSecurityException(e);
    }
  }

  /** The DER bytes of a chain, as the key it is remembered by. */
  private record Key(byte[][] ders, String authType) {
    static Key of(X509Certificate[] chain, String authType) throws CertificateEncodingException {
      byte[][] ders = new byte[chain.length][];
      for (int i = 0; i < chain.length; i++) {
        ders[i] = chain[i].getEncoded();
      }
      return new Key(ders, authType);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && authType.equals(k.authType) && Arrays.deepEquals(ders, k.ders);
    }

    @Override
    public int hashCode() {
      return Arrays.deepHashCode(ders) * 31 + authType.hashCode();
    }
  }

  /** When every certificate of a chain is valid: the latest start and the earliest end. */
  private record Validity(Instant from, Instant until) {
    static Validity of(X509Certificate[] chain) {
      Instant from = Instant.MIN;
      Instant until = Instant.MAX;
      for (X509Certificate c : chain) {
        Instant b = c.getNotBefore().toInstant();
        Instant a = c.getNotAfter().toInstant();
        from = b.isAfter(from) ? b : from;
        until = a.isBefore(until) ? a : until;
      }
      return new Validity(from, until);
    }

    boolean covers(Instant now) {
      return !now.isBefore(from) && !now.isAfter(until);
    }
  }

  /** Whether the chain was accepted before and is valid now; a lapsed one is forgotten. */
  private boolean remembered(Key key) {
    Instant now = clock.instant();
    synchronized (accepted) {
      Validity v = accepted.get(key);
      if (v == null) {
        return false;
      }
      if (v.covers(now)) {
        return true;
      }
      accepted.remove(key);
      return false;
    }
  }

  private void remember(Key key, X509Certificate[] chain) {
    Validity v = Validity.of(chain);
    synchronized (accepted) {
      accepted.put(key, v);
    }
  }

  /** How many chains are remembered; for tests. */
  int size() {
    synchronized (accepted) {
      return accepted.size();
    }
  }

  private interface Check {
    void run() throws CertificateException;
  }

  private void checkClient(X509Certificate[] chain, String authType, Check check)
      throws CertificateException {
    if (chain == null || chain.length == 0 || authType == null) {
      check.run(); // the delegate says what is wrong
      return;
    }
    Key key = Key.of(chain, authType);
    if (remembered(key)) {
      return;
    }
    check.run();
    remember(key, chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    checkClient(chain, authType, () -> delegate.checkClientTrusted(chain, authType, engine));
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    checkClient(chain, authType, () -> delegate.checkClientTrusted(chain, authType, socket));
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    checkClient(chain, authType, () -> delegate.checkClientTrusted(chain, authType));
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, engine);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return delegate.getAcceptedIssuers();
  }
}
