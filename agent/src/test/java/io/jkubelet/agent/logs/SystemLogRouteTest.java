package io.jkubelet.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.server.KubeletServer;
import io.jkubelet.agent.server.ServerOptions;
import io.jkubelet.agent.server.ServingCerts;
import io.jkubelet.agent.server.TlsPolicy;
import io.jkubelet.agent.server.auth.Authenticator;
import io.jkubelet.agent.server.auth.Authorizer;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** /logs/ over real HTTPS: listings, files, redirects, and paths that try to leave the root. */
@Timeout(60)
class SystemLogRouteTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-03-01T00:00:00Z"), ZoneOffset.UTC);

  @TempDir Path dir;
  private Path root;
  private KubeletServer server;
  private ExecutorService readers;

  @BeforeEach
  void start() throws Exception {
    root = Files.createDirectories(dir.resolve("log"));
    Files.writeString(root.resolve("syslog"), "line 1\nline 2\n");
    Files.createDirectories(root.resolve("pods/ns_web_u1"));
    Files.writeString(root.resolve("a <b>.log"), "x");
    Files.writeString(dir.resolve("secret"), "do not show");
    Files.createSymbolicLink(root.resolve("escape"), dir.resolve("secret"));
    Files.createSymbolicLink(root.resolve("escape-dir"), dir);
    Files.createSymbolicLink(root.resolve("inside"), root.resolve("syslog"));
    readers = Executors.newVirtualThreadPerTaskExecutor();
    server =
        new KubeletServer(
            new ServerOptions(
                "127.0.0.1",
                0,
                ServingCerts.selfSigned(dir.resolve("pki"), "node-a", List.of(), CLOCK),
                List.of(),
                "node-a",
                null,
                TlsPolicy.DEFAULT),
            new Authenticator(true, Optional.empty()),
            Authorizer.ALWAYS_ALLOW,
            List.of(new SystemLogRoute(root, readers)));
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop();
    readers.shutdownNow();
  }

  @Test
  void aDirectoryIsListedAsGoDoesAndAFileIsServed() throws Exception {
    try (HttpClient http = client()) {
      HttpResponse<String> r = get(http, "/logs/");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("content-type")).contains("text/html; charset=utf-8");
      assertThat(r.body())
          .isEqualTo(
              "<pre>\n"
                  + "<a href=\"a%20%3Cb%3E.log\">a &lt;b&gt;.log</a>\n"
                  + "<a href=\"escape\">escape</a>\n"
                  + "<a href=\"escape-dir/\">escape-dir/</a>\n"
                  + "<a href=\"inside\">inside</a>\n"
                  + "<a href=\"pods/\">pods/</a>\n"
                  + "<a href=\"syslog\">syslog</a>\n"
                  + "</pre>\n");
      assertThat(get(http, "/logs/syslog").body()).isEqualTo("line 1\nline 2\n");
      assertThat(get(http, "/logs/inside").body()).isEqualTo("line 1\nline 2\n");
      r = get(http, "/logs/pods");
      assertThat(r.statusCode()).isEqualTo(301);
      assertThat(r.headers().firstValue("location")).contains("/logs/pods/");
      assertThat(get(http, "/logs").statusCode()).isEqualTo(301);
      assertThat(get(http, "/logs/pods/").body()).contains("ns_web_u1/");
      assertThat(get(http, "/logs/nope").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void pathsOutOfTheRootAreRefused() throws Exception {
    try (HttpClient http = client()) {
      assertThat(get(http, "/logs/escape").statusCode()).isEqualTo(403);
      assertThat(get(http, "/logs/escape-dir/secret").statusCode()).isEqualTo(403);
      assertThat(get(http, "/logs/%2e%2e/secret").statusCode()).isEqualTo(404);
      assertThat(get(http, "/logs/pods/%2E%2E/%2E%2E/secret").statusCode()).isEqualTo(404);
      assertThat(get(http, "/logs/%2Fetc%2Fpasswd").statusCode()).isEqualTo(403);
    }
    assertThat(raw("/logs/../secret")).startsWith("HTTP/1.1 404").doesNotContain("do not show");
    assertThat(raw("/logs/pods/../../secret")).startsWith("HTTP/1.1 404");
  }

  /** A request sent byte for byte, as no client library would normalize it. */
  private String raw(String path) throws Exception {
    try (SSLSocket s =
        (SSLSocket) trustAll().getSocketFactory().createSocket("127.0.0.1", server.port())) {
      s.getOutputStream()
          .write(
              ("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      try (InputStream in = s.getInputStream()) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    }
  }

  private HttpResponse<String> get(HttpClient http, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpClient client() throws Exception {
    return HttpClient.newBuilder().sslContext(trustAll()).build();
  }

  private static SSLContext trustAll() throws Exception {
    return io.jkubelet.agent.testing.TrustAll.context();
  }
}
