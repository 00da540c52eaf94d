package io.jkubelet.agent.client;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The node's client certificate on the API clients' TLS, for a certificate that changes while they
 * run: a key manager (presenting whatever its delegate, a {@code
 * certificates.CertificateKeyManager}, presents at each handshake) that also keeps what a rotation
 * must undo, as upstream's rotating transport (pkg/kubelet/certificate/transport.go) does with its
 * dialer: the open connections, made with the old certificate, and the TLS contexts' client
 * sessions, whose resumption would present the old identity again without asking the key manager.
 *
 * <p>{@link NativeTlsClientFactory} recognizes it among a client's key managers: it registers each
 * TLS context it makes with it ({@link #sessions}), with the session cache off where it can, and
 * each connection the client opens ({@link #track}). After a rotation {@link #renew} forgets the
 * sessions and closes the connections; fabric8's watches and informers then reconnect and handshake
 * with the new certificate, and a request caught on a closed connection fails as on any dropped
 * connection, to be retried by its caller.
 *
 * <p>Thread-safe: the connections are a concurrent map, the contexts a copy-on-write list; a client
 * adds one context when it is built (the agent builds a handful, for the life of the process).
 */
final class ClientIdentity extends X509ExtendedKeyManager {
  private final X509ExtendedKeyManager keys;
  private final Map<Object, Runnable> connections = new ConcurrentHashMap<>();
  private final List<SSLSessionContext> contexts = new CopyOnWriteArrayList<>();

  ClientIdentity(X509ExtendedKeyManager keys) {
    this.keys = keys;
  }

  /** Remembers an open connection ({@code key} identifies it) and how to close it. */
  void track(Object key, Runnable close) {
    connections.put(key, close);
  }

  /** Forgets a connection that closed. */
  void untrack(Object key) {
    connections.remove(key);
  }

  /** Remembers a TLS context's client sessions, to forget them after a rotation. */
  void sessions(SSLSessionContext context) {
    if (context != null) {
      contexts.add(context);
    }
  }

  /** How many connections are open. */
  int openConnections() {
    return connections.size();
  }

  /**
   * After a rotation: invalidates every cached client session, then closes every connection made so
   * far, so that each new one makes a full handshake with the new certificate.
   *
   * @return how many connections were closed
   */
  int renew() {
    for (SSLSessionContext c : contexts) {
      for (byte[] id : Collections.list(c.getIds())) {
        SSLSession s = c.getSession(id);
        if (s != null) {
          s.invalidate();
        }
      }
    }
    int closed = 0;
    for (var e : Map.copyOf(connections).entrySet()) {
      connections.remove(e.getKey());
      e.getValue().run();
      closed++;
    }
    return closed;
  }

  @Override
  public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
    return keys.chooseEngineClientAlias(keyType, issuers, engine);
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return keys.chooseClientAlias(keyType, issuers, socket);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    return keys.getCertificateChain(alias);
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    return keys.getPrivateKey(alias);
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return keys.getClientAliases(keyType, issuers);
  }

  /** Not a server's key manager. */
  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return null;
  }

  /** Not a server's key manager. */
  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return null;
  }

  /** Not a server's key manager. */
  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return null;
  }
}
