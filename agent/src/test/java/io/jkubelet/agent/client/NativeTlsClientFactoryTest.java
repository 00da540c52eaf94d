package io.jkubelet.agent.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import io.jkubelet.agent.certificates.CertificateKeyManager;
import io.jkubelet.agent.certificates.CertificateOptions;
import io.jkubelet.agent.certificates.ClientCertificate;
import io.jkubelet.agent.server.KubeletServer;
import io.jkubelet.agent.server.Responses;
import io.jkubelet.agent.server.Route;
import io.jkubelet.agent.server.ServerOptions;
import io.jkubelet.agent.server.ServingCerts;
import io.jkubelet.agent.server.TestPki;
import io.jkubelet.agent.server.TlsPolicy;
import io.jkubelet.agent.server.auth.Authenticator;
import io.jkubelet.agent.server.auth.Authorizer;
import io.jkubelet.agent.server.auth.Subject;
import io.jkubelet.agent.util.Time;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API clients' TLS (BoringSSL through {@link NativeTlsClientFactory}) against a server that
 * asks for a client certificate: the kubeconfig's certificate is presented, its CA is the only one
 * trusted, and the server's name is checked against its certificate.
 */
@Timeout(60)
class NativeTlsClientFactoryTest {
  @TempDir Path dir;
  private KubeletServer server;
  private ServingCerts serving;
  private TestPki pki;

  private final Route hello =
      new Route() {
        @Override
        public boolean matches(String path) {
          return true;
        }

        @Override
        public void handle(ChannelHandlerContext ctx, FullHttpRequest req, Subject subject) {
          Responses.text(ctx, req, HttpResponseStatus.OK, "hello " + subject.name());
        }
      };

  @BeforeEach
  void start() throws Exception {
    pki = new TestPki("test-ca");
    // For node-a, localhost and 127.0.0.1; listening on every loopback address.
    serving = ServingCerts.selfSigned(dir.resolve("pki"), "node-a", List.of(), Clock.systemUTC());
    server =
        new KubeletServer(
            new ServerOptions(
                "0.0.0.0", 0, serving, List.of(pki.ca), "node-a", null, TlsPolicy.DEFAULT),
            new Authenticator(false, Optional.empty()),
            Authorizer.ALWAYS_ALLOW,
            List.of(hello));
    server.start();
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop();
    }
  }

  private HttpResponse<String> get(String host, X509Certificate trusted, TestPki.Client client)
      throws Exception {
    ConfigBuilder b =
        new ConfigBuilder(Config.empty())
            .withMasterUrl("https://" + host + ":" + server.port())
            .withCaCertData(pem("CERTIFICATE", trusted.getEncoded()))
            .withRequestRetryBackoffLimit(0);
    if (client != null) {
      b.withClientCertData(pem("CERTIFICATE", client.cert().getEncoded()))
          .withClientKeyData(pem("PRIVATE KEY", client.key().getPrivate().getEncoded()))
          .withClientKeyAlgo("RSA");
    }
    try (KubernetesClient k =
        ApiHttpClients.small(new KubernetesClientBuilder().withConfig(b.build())).build()) {
      HttpClient http = k.getHttpClient();
      return http.sendAsync(
              http.newHttpRequestBuilder()
                  .uri("https://" + host + ":" + server.port() + "/pods")
                  .build(),
              String.class)
          .get(30, TimeUnit.SECONDS);
    }
  }

  private static String pem(String type, byte[] der) {
    String text =
        "-----BEGIN "
            + type
            + "-----\n"
            + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
            + "\n-----END "
            + type
            + "-----\n";
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }

  private static List<Throwable> causes(Throwable e) {
    List<Throwable> out = new ArrayList<>();
    for (Throwable t = e; t != null && !out.contains(t); t = t.getCause()) {
      out.add(t);
    }
    return out;
  }

  @Test
  void theKubeconfigsClientCertificateIsPresented() throws Exception {
    HttpResponse<String> r =
        get("127.0.0.1", serving.chain().get(0), pki.client("CN=system:node:node-a"));
    assertThat(r.code()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("hello system:node:node-a");
  }

  @Test
  void withoutAClientCertificateTheServerRefuses() throws Exception {
    assertThat(get("localhost", serving.chain().get(0), null).code()).isEqualTo(401);
  }

  @Test
  void aServerCertificateFromAnotherCaIsRefused() throws Exception {
    X509Certificate other =
        ServingCerts.selfSigned(dir.resolve("other"), "node-a", List.of(), Clock.systemUTC())
            .chain()
            .get(0);
    assertThatThrownBy(() -> get("127.0.0.1", other, pki.client("CN=alice")))
        .isInstanceOf(ExecutionException.class)
        .satisfies(e -> assertThat(causes(e)).anyMatch(SSLException.class::isInstance));
  }

  @Test
  void aServerWhoseCertificateDoesNotNameTheAddressIsRefused() throws Exception {
    // 127.0.0.2 reaches the same server, but its certificate does not name that address.
    assertThatThrownBy(() -> get("127.0.0.2", serving.chain().get(0), pki.client("CN=alice")))
        .isInstanceOf(ExecutionException.class)
        .rootCause()
        .hasMessageContaining("127.0.0.2");
  }

  private static ClientCertificate certificate(TestPki.Client client) {
    return new ClientCertificate(List.of(client.cert()), client.key().getPrivate());
  }

  private static String hello(KubernetesClient k, String host) throws Exception {
    HttpClient http = k.getHttpClient();
    return http.sendAsync(
            http.newHttpRequestBuilder().uri("https://" + host + ":" + port(k) + "/pods").build(),
            String.class)
        .get(30, TimeUnit.SECONDS)
        .body();
  }

  private static int port(KubernetesClient k) {
    return k.getMasterUrl().getPort();
  }

  @Test
  void afterARotationNewConnectionsPresentTheNewCertificate() throws Exception {
    AtomicReference<ClientCertificate> current =
        new AtomicReference<>(certificate(pki.client("CN=system:node:node-a")));
    ClientIdentity identity =
        new ClientIdentity(new CertificateKeyManager(() -> Optional.of(current.get())));
    Config c =
        new ConfigBuilder(Config.empty())
            .withMasterUrl("https://127.0.0.1:" + server.port())
            .withCaCertData(pem("CERTIFICATE", serving.chain().get(0).getEncoded()))
            .withRequestRetryBackoffLimit(0)
            .build();
    TrustManager[] trust = SSLUtils.trustManagers(c);
    try (KubernetesClient k =
        ApiHttpClients.small(new KubernetesClientBuilder().withConfig(c))
            .withHttpClientBuilderConsumer(b -> b.sslContext(new KeyManager[] {identity}, trust))
            .build()) {
      assertThat(hello(k, "127.0.0.1")).isEqualTo("hello system:node:node-a");
      assertThat(identity.openConnections()).isEqualTo(1);

      current.set(certificate(pki.client("CN=system:node:node-b")));
      // The request goes on the open connection, which keeps the certificate it was made with;
      // unless the pool has not taken that connection back yet when it is sent (Vert.x hands it
      // back on its loop after the response), and opens another, which presents the new one.
      String second = hello(k, "127.0.0.1");
      int open = identity.openConnections();
      assertThat(second)
          .as("%d open connection(s): each presents the certificate it was made with", open)
          .isEqualTo(open == 1 ? "hello system:node:node-a" : "hello system:node:node-b");

      assertThat(identity.renew()).isEqualTo(open);
      assertThat(hello(k, "127.0.0.1"))
          .as("a new connection, with a full handshake (no resumed session)")
          .isEqualTo("hello system:node:node-b");
    }
  }

  @Test
  void aKubeconfigNamingOnePemForCertificateAndKeyIsPresented() throws Exception {
    TestPki.Client node = pki.client("CN=system:node:node-a");
    Path pemFile = dir.resolve("kubelet-client-current.pem");
    Files.writeString(
        pemFile,
        pemText("CERTIFICATE", node.cert().getEncoded())
            + pemText("PRIVATE KEY", node.key().getPrivate().getEncoded()));
    Path kubeconfig = dir.resolve("kubelet.conf");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster: {server: "https://127.0.0.1:%d", certificate-authority-data: %s}
        contexts:
        - name: n
          context: {cluster: c, user: u}
        current-context: n
        users:
        - name: u
          user: {client-certificate: %s, client-key: %s}
        """
            .formatted(
                server.port(),
                pem("CERTIFICATE", serving.chain().get(0).getEncoded()),
                pemFile,
                pemFile));
    ClientCertificates wiring =
        new ClientCertificates(
            CertificateOptions.of(kubeconfig, null, dir.resolve("pki"), false, false),
            "node-a",
            Time.system(),
            (ref, type, reason, message) -> {});
    Config base = wiring.load();
    wiring.start();
    try (KubernetesClient k =
        ApiHttpClients.small(new KubernetesClientBuilder().withConfig(base))
            .withHttpClientBuilderConsumer(wiring.tls())
            .build()) {
      assertThat(hello(k, "127.0.0.1")).isEqualTo("hello system:node:node-a");
    } finally {
      wiring.stop();
    }
  }

  private static String pemText(String type, byte[] der) {
    return new String(Base64.getDecoder().decode(pem(type, der)), StandardCharsets.US_ASCII);
  }
}
