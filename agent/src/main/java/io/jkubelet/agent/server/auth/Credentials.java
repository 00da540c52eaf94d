package io.jkubelet.agent.server.auth;

import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * What a request presented: the client certificate chain the TLS handshake verified against the
 * client CA (empty when none), and the bearer token of its {@code Authorization} header.
 */
public record Credentials(List<X509Certificate> peerChain, Optional<String> bearerToken) {
  public Credentials {
    peerChain = List.copyOf(peerChain);
  }

  /** The token of an {@code Authorization: Bearer <token>} header value (null when absent). */
  public static Optional<String> bearer(String authorizationHeader) {
    if (authorizationHeader == null) {
      return Optional.empty();
    }
    String[] parts = authorizationHeader.trim().split("\\s+");
    if (parts.length != 2 || !parts[0].equalsIgnoreCase("bearer") || parts[1].isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(parts[1]);
  }
}
