package io.jkubelet.agent.server;

import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;

/**
 * How the kubelet API listens.
 *
 * @param address the address to bind ({@code address}, default 0.0.0.0)
 * @param port the HTTPS port ({@code port}, default 10250); 0 picks a free one
 * @param certs the serving certificate; null serves plain HTTP (the healthz port)
 * @param clientCAs the CAs client certificates are verified against ({@code
 *     authentication.x509.clientCAFile}); empty: client certificates are not asked for
 * @param nodeName the node's name, the object every request is authorized against
 */
public record ServerOptions(
    String address,
    int port,
    ServingCerts certs,
    List<X509Certificate> clientCAs,
    String nodeName) {
  public ServerOptions {
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(nodeName, "nodeName");
    clientCAs = List.copyOf(clientCAs);
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " out of range");
    }
  }
}
