package io.jkubelet.agent.server;

import io.jkubelet.agent.certificates.CertificateKeyManager;
import io.jkubelet.agent.certificates.ClientCertificate;
import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * How the kubelet API listens.
 *
 * @param address the address to bind ({@code address}, default 0.0.0.0)
 * @param port the HTTPS port ({@code port}, default 10250); 0 picks a free one
 * @param certs the serving certificate when it is fixed; null serves plain HTTP (the healthz port)
 *     unless {@code keys} is given
 * @param clientCAs the CAs client certificates are verified against ({@code
 *     authentication.x509.clientCAFile}); empty: client certificates are not asked for
 * @param nodeName the node's name, the object every request is authorized against
 * @param keys what each TLS handshake presents (a certificate that changes while the server runs,
 *     {@link ServingIdentity#keyManager}); null: plain HTTP. Made from {@code certs} when not
 *     given.
 * @param tls the TLS versions and cipher suites ({@code tlsMinVersion}, {@code tlsCipherSuites})
 */
public record ServerOptions(
    String address,
    int port,
    @Nullable ServingCerts certs,
    List<X509Certificate> clientCAs,
    String nodeName,
    @Nullable X509ExtendedKeyManager keys,
    TlsPolicy tls) {
  public ServerOptions {
    Records.requireNonNull(ServerOptions.class, address, clientCAs, nodeName, tls);
    clientCAs = List.copyOf(clientCAs);
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " out of range");
    }
    if (keys == null && certs != null) {
      ClientCertificate fixed = new ClientCertificate(certs.chain(), certs.key());
      keys = CertificateKeyManager.fixed(fixed);
    }
  }

  /**
   * Plain HTTP on {@code address}:{@code port} (the healthz port): no certificate, no client CAs.
   */
  public static ServerOptions plain(String address, int port, String nodeName) {
    return new ServerOptions(address, port, null, List.of(), nodeName, null, TlsPolicy.DEFAULT);
  }
}
