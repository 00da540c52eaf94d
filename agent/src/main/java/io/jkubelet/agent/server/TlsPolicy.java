package io.jkubelet.agent.server;

import io.jkubelet.config.TlsNames;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The kubelet API's TLS versions and cipher suites, from upstream's {@code tlsMinVersion} and
 * {@code tlsCipherSuites} (checked by the configuration with upstream's messages), in the names
 * Java's and BoringSSL's engines take, as Go's {@code tls.Config} applies them: the versions from
 * the least one to TLS 1.3; the suites of TLS 1.2 and older as listed, and TLS 1.3's own three
 * always (Go never lets them be configured).
 *
 * @param protocols Java's protocol names, e.g. {@code TLSv1.2}, {@code TLSv1.3}
 * @param ciphers Java's cipher suite names, TLS 1.3's included; empty: the engine's defaults
 */
public record TlsPolicy(List<String> protocols, List<String> ciphers) {
  private static final List<String> ORDER = List.of("TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3");

  /**
   * Go's names of suites that Java (IANA) names otherwise: ChaCha20 takes its hash, and the legacy
   * RC4 and 3DES ones are also known by their {@code SSL_} names.
   */
  private static final Map<String, List<String>> JAVA_NAMES =
      Map.of(
          "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
          List.of("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"),
          "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
          List.of("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"),
          "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
          List.of("TLS_RSA_WITH_3DES_EDE_CBC_SHA", "SSL_RSA_WITH_3DES_EDE_CBC_SHA"),
          "TLS_RSA_WITH_RC4_128_SHA",
          List.of("TLS_RSA_WITH_RC4_128_SHA", "SSL_RSA_WITH_RC4_128_SHA"));

  /** Upstream's defaults: TLS 1.2 and 1.3, the engine's suites. NOTE: after the names it uses. */
  public static final TlsPolicy DEFAULT = of("", List.of());

  public TlsPolicy {
    protocols = List.copyOf(protocols);
    ciphers = List.copyOf(ciphers);
    if (protocols.isEmpty()) {
      throw new IllegalArgumentException("no TLS version left");
    }
  }

  /**
   * @param minVersion upstream's name ({@code VersionTLS12}), or "" for {@code VersionTLS12}
   * @param goCiphers upstream's (Go's) names, already checked; empty for the engine's defaults
   */
  public static TlsPolicy of(String minVersion, List<String> goCiphers) {
    String least = TlsNames.VERSIONS.get(minVersion.isEmpty() ? "VersionTLS12" : minVersion);
    Objects.requireNonNull(least, () -> "unknown tls version \"" + minVersion + "\"");
    List<String> protocols = ORDER.subList(ORDER.indexOf(least), ORDER.size());
    if (goCiphers.isEmpty()) {
      return new TlsPolicy(protocols, List.of());
    }
    Set<String> java = new LinkedHashSet<>();
    for (String go : goCiphers) {
      if (!TlsNames.TLS13_CIPHERS.contains(go)) {
        java.addAll(JAVA_NAMES.getOrDefault(go, List.of(go)));
      }
    }
    java.addAll(TlsNames.TLS13_CIPHERS);
    return new TlsPolicy(protocols, new ArrayList<>(java));
  }

  /** Warns of each insecure suite, as upstream's {@code Use of insecure cipher '...' detected.} */
  static void warnInsecure(List<String> goCiphers, Logger log) {
    goCiphers.stream()
        .filter(TlsNames.INSECURE_CIPHERS::contains)
        .forEach(c -> log.warn("kubelet server: Use of insecure cipher '{}' detected.", c));
  }
}
