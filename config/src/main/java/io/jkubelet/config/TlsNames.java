package io.jkubelet.config;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The names upstream's {@code tlsCipherSuites} and {@code tlsMinVersion} take, as {@code
 * k8s.io/component-base/cli/flag/ciphersuites_flag.go} (v1.20) lists them: Go's {@code crypto/tls}
 * names of cipher suites, the secure ones and the insecure ones it still accepts (with a warning),
 * and {@code VersionTLS10} to {@code VersionTLS13}.
 */
public final class TlsNames {
  private TlsNames() {}

  /** Upstream's {@code ciphers}: what {@code --help} calls its preferred values. */
  public static final Set<String> PREFERRED_CIPHERS =
      Set.of(
          "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
          "TLS_RSA_WITH_AES_128_CBC_SHA",
          "TLS_RSA_WITH_AES_256_CBC_SHA",
          "TLS_RSA_WITH_AES_128_GCM_SHA256",
          "TLS_RSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
          "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
          "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
          "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
          "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
          "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
          "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
          "TLS_AES_128_GCM_SHA256",
          "TLS_CHACHA20_POLY1305_SHA256",
          "TLS_AES_256_GCM_SHA384");

  /** Upstream's {@code insecureCiphers}: accepted, with a warning at start. */
  public static final Set<String> INSECURE_CIPHERS =
      Set.of(
          "TLS_RSA_WITH_RC4_128_SHA",
          "TLS_RSA_WITH_AES_128_CBC_SHA256",
          "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
          "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
          "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
          "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256");

  /** The TLS 1.3 suites, which Go (and so upstream) always enables and never configures. */
  public static final List<String> TLS13_CIPHERS =
      List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");

  /** Upstream's {@code versions}, with the protocol names of Java's TLS. */
  public static final Map<String, String> VERSIONS =
      Map.of(
          "VersionTLS10", "TLSv1",
          "VersionTLS11", "TLSv1.1",
          "VersionTLS12", "TLSv1.2",
          "VersionTLS13", "TLSv1.3");

  /** Whether upstream accepts this cipher suite name. */
  public static boolean knownCipher(String name) {
    return PREFERRED_CIPHERS.contains(name) || INSECURE_CIPHERS.contains(name);
  }
}
