package io.jkubelet.agent.export;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Where documents go: the server's base URL (without credentials), the {@code Authorization}
 * header, the index prefix, and the CA to trust for https.
 *
 * @param base scheme, host, port and path prefix, no trailing slash, no user info
 * @param authorization {@code Basic ...}, or null
 * @param index the index prefix, e.g. {@code jkubelet-events}
 * @param caFile PEM certificates to trust instead of the JDK's, or null
 */
public record ExportTarget(String base, String authorization, String index, Path caFile) {
  /** Elasticsearch's rules for index names, narrowed to what a prefix needs. */
  private static final Pattern INDEX = Pattern.compile("[a-z0-9][a-z0-9._-]{0,200}");

  public ExportTarget {
    Objects.requireNonNull(base, "base");
    if (index == null || !INDEX.matcher(index).matches()) {
      throw new IllegalArgumentException(
          "index \""
              + index
              + "\" is not a valid index name: lower case letters, digits, '.', '_', '-'");
    }
  }

  /**
   * Parses {@code --event-export-url}: http or https, with optional {@code user:password@};
   * credentials from {@code credentialsFile} (one line {@code user:password}) win over the URL's.
   */
  public static ExportTarget parse(String url, Path credentialsFile, Path caFile, String index) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("the export URL is not a URL: " + e.getReason());
    }
    String scheme =
        uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("the export URL is not an http or https URL");
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("the export URL has no host");
    }
    String userInfo = uri.getRawUserInfo();
    String credentials = null;
    if (userInfo != null && !userInfo.isEmpty()) {
      credentials = URLDecoder.decode(userInfo, StandardCharsets.UTF_8);
    }
    if (credentialsFile != null) {
      try {
        credentials = Files.readAllLines(credentialsFile).stream().findFirst().orElse("").strip();
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "cannot read credentials file " + credentialsFile + ": " + e.getMessage());
      }
      if (credentials.indexOf(':') <= 0) {
        throw new IllegalArgumentException(
            "credentials file " + credentialsFile + " does not hold one line user:password");
      }
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    String base =
        scheme + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort()) + path;
    String auth =
        credentials == null
            ? null
            : "Basic "
                + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
    return new ExportTarget(base, auth, index, caFile);
  }

  /** The URL as logs may show it: without credentials. */
  @Override
  public String toString() {
    return base + " (index " + index + (authorization == null ? "" : ", basic auth") + ")";
  }

  /** Reads the CA file, if any, so that a bad one is a configuration error at start-up. */
  public void checkCa() {
    if (caFile != null) {
      sslContext(caFile);
    }
  }

  /** An HTTP/1.1 client that trusts {@link #caFile} when given. */
  HttpClient client(Duration connectTimeout) {
    HttpClient.Builder b =
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout);
    if (caFile != null) {
      b.sslContext(sslContext(caFile));
    }
    return b.build();
  }

  private static SSLContext sslContext(Path caFile) {
    try (InputStream in = Files.newInputStream(caFile)) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      int i = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        ks.setCertificateEntry("ca-" + i++, c);
      }
      if (i == 0) {
        throw new IllegalArgumentException("CA file " + caFile + " holds no certificate");
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot read CA file " + caFile + ": " + e.getMessage());
    }
  }
}
