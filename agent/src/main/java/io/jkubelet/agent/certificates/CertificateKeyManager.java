package io.jkubelet.agent.certificates;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Optional;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A TLS key manager that always presents the current certificate: on a client, as upstream's
 * rotating transport does with {@code GetClientCertificate} (pkg/kubelet/certificate/transport.go);
 * on the kubelet API's server, as upstream's {@code GetCertificate} presents the serving
 * certificate manager's. It is asked at every full handshake, so a connection made after a rotation
 * uses the new certificate; made before it, a connection keeps the one it was made with.
 *
 * <p>The alias names the certificate ({@code kubelet-<serial>}), so that a TLS stack that caches
 * key material by alias never serves an old certificate for a new alias. The last two certificates
 * answer by alias, for a handshake that chose its alias just before a rotation. With no current
 * certificate, no alias is chosen and the handshake goes on without one (the server then sees an
 * anonymous client), as upstream.
 *
 * <p>Works with the JDK's TLS and with Netty's OpenSSL engine, which calls {@link
 * #chooseEngineClientAlias} for each handshake and does not cache what a plain {@link
 * javax.net.ssl.KeyManagerFactory}'s key manager returns. Thread-safe: {@code recent} is replaced
 * whole.
 *
 * <p>NOTE: a key manager is asked only in a full handshake. A client that resumes a TLS session
 * presents the identity the session was made with, so the TLS context's client sessions must be
 * forgotten when the certificate rotates (invalidated, or the session cache disabled), and
 * connections made before it closed, as upstream's transport closes them.
 */
public final class CertificateKeyManager extends X509ExtendedKeyManager {
  private final Supplier<Optional<ClientCertificate>> current;
  private volatile Recent recent = new Recent(null, null);

  private record Recent(ClientCertificate latest, ClientCertificate previous) {}

  /** A key manager presenting whatever {@code current} gives at each handshake. */
  public CertificateKeyManager(Supplier<Optional<ClientCertificate>> current) {
    this.current = current;
  }

  /** The manager's current certificate. */
  public static CertificateKeyManager of(CertificateManager manager) {
    return new CertificateKeyManager(manager::current);
  }

  /** Always the one certificate (a client for one request, such as a renewal as the node). */
  public static CertificateKeyManager fixed(ClientCertificate certificate) {
    return new CertificateKeyManager(() -> Optional.of(certificate));
  }

  static String alias(ClientCertificate c) {
    return "kubelet-" + c.serial().toString(16);
  }

  private String choose(String[] keyTypes) {
    Optional<ClientCertificate> c = current.get();
    if (c.isEmpty()) {
      return null;
    }
    ClientCertificate cert = c.get();
    if (!acceptable(cert.key(), keyTypes)) {
      return null;
    }
    Recent r = recent;
    if (r.latest() != cert) {
      recent = new Recent(cert, r.latest());
    }
    return alias(cert);
  }

  /** Whether the server takes a key of this kind: "EC" (or "EC_EC", "EC_RSA"), "RSA"... */
  private static boolean acceptable(PrivateKey key, String[] keyTypes) {
    if (keyTypes == null) {
      return true;
    }
    String alg = key.getAlgorithm();
    for (String t : keyTypes) {
      if (t != null && (t.equals(alg) || t.startsWith(alg + "_"))) {
        return true;
      }
    }
    return false;
  }

  private Optional<ClientCertificate> byAlias(String alias) {
    if (alias == null) {
      return Optional.empty();
    }
    Optional<ClientCertificate> now = current.get().filter(c -> alias.equals(alias(c)));
    if (now.isPresent()) {
      return now;
    }
    Recent r = recent;
    for (ClientCertificate c : new ClientCertificate[] {r.latest(), r.previous()}) {
      if (c != null && alias.equals(alias(c))) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  @Override
  public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
    return choose(keyType);
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return choose(keyType);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    return byAlias(alias).map(c -> c.chain().toArray(X509Certificate[]::new)).orElse(null);
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    return byAlias(alias).map(ClientCertificate::key).orElse(null);
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    String alias = choose(new String[] {keyType});
    return alias == null ? null : new String[] {alias};
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return getClientAliases(keyType, issuers);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return choose(new String[] {keyType});
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return choose(new String[] {keyType});
  }
}
