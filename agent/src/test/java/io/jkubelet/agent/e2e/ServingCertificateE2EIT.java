package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jkubelet.agent.runtime.Labels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.Extensions;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The kubelet API's serving certificate from the CSR API ({@code --rotate-server-certificates},
 * upstream's {@code serverTLSBootstrap}): the node files a CSR for {@code
 * kubernetes.io/kubelet-serving} with its addresses; the controller manager does not approve those,
 * so until an admin does, port 10250 keeps serving the self-signed certificate and a Warning on the
 * Node names the CSR. Approved with {@code kubectl certificate approve}, the cluster CA's
 * certificate is presented to new connections without a restart, and {@code kubectl logs} and
 * {@code exec} still work through the API server. A denied CSR is a Warning with the denial's
 * reason, and a new CSR follows.
 */
@Timeout(300)
class ServingCertificateE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SIGNER = "kubernetes.io/kubelet-serving";
  private final String node = "srv-" + UUID.randomUUID().toString().substring(0, 8);
  private final String ns = "srv-" + UUID.randomUUID().toString().substring(0, 8);
  private Path tmp;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeEach
  void setUp() throws Exception {
    tmp = Files.createTempDirectory("jkubelet-serving");
  }

  @AfterEach
  void tearDown() throws Exception {
    if (jkubelet != null) {
      jkubelet.close();
    }
    Kubectl.run("delete", "namespace", ns, "--wait=false");
    Kubectl.run("delete", "node", node, "--wait=false");
    for (JsonNode csr : servingCsrs()) {
      Kubectl.run("delete", "csr", csr.path("metadata").path("name").asText());
    }
    TestDocker.removeAll(TestDocker.client(), Labels.NODE, node);
    TestMounts.unmountUnder(tmp);
  }

  private JsonNode json(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("-o", "json"));
    return JSON.readTree(Kubectl.run(all.toArray(String[]::new)).ok().out());
  }

  /** This node's serving CSRs. */
  private List<JsonNode> servingCsrs() throws Exception {
    List<JsonNode> out = new ArrayList<>();
    json("get", "csr")
        .path("items")
        .forEach(
            c -> {
              if (SIGNER.equals(c.path("spec").path("signerName").asText())
                  && ("system:node:" + node).equals(c.path("spec").path("username").asText())) {
                out.add(c);
              }
            });
    return out;
  }

  private boolean ready() throws Exception {
    for (JsonNode c : json("get", "node", node).path("status").path("conditions")) {
      if ("Ready".equals(c.path("type").asText())) {
        return "True".equals(c.path("status").asText());
      }
    }
    return false;
  }

  private JkubeletProcess start() throws Exception {
    return new JkubeletProcess(
            node,
            Files.createDirectories(tmp.resolve("manifests")),
            tmp.resolve("root"),
            tmp.resolve("jkubelet.log"),
            List.of(
                "--node-ip",
                "127.0.0.1",
                "--kubeconfig",
                Kubectl.nodeKubeconfig(node).toString(),
                "--cert-dir",
                tmp.resolve("pki").toString(),
                "--rotate-server-certificates"))
        .start();
  }

  /** The certificate a new TLS connection to the kubelet API is shown (no session resumed). */
  private X509Certificate presented() throws Exception {
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, new TrustManager[] {new TrustAll()}, new SecureRandom());
    try (SSLSocket s =
        (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", jkubelet.apiPort())) {
      s.startHandshake();
      return (X509Certificate) s.getSession().getPeerCertificates()[0];
    }
  }

  private static X509Certificate clusterCa() throws Exception {
    Path ca = Path.of(Kubectl.env("JKUBELET_TEST_K8S_STATE"), "pki", "ca.crt");
    try (var in = Files.newInputStream(ca)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  /** The DNS and IP names a CSR's request asks for, as {@code DNS:x} and {@code IP:y}. */
  private static List<String> requestedNames(JsonNode csr) throws Exception {
    String pem =
        new String(
            Base64.getDecoder().decode(csr.path("spec").path("request").asText()),
            StandardCharsets.US_ASCII);
    String b64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    PKCS10CertificationRequest req =
        new PKCS10CertificationRequest(Base64.getDecoder().decode(b64));
    List<String> out = new ArrayList<>();
    var attrs = req.getAttributes(PKCSObjectIdentifiers.pkcs_9_at_extensionRequest);
    Extensions ext = Extensions.getInstance(attrs[0].getAttrValues().getObjectAt(0));
    for (GeneralName n :
        GeneralNames.fromExtensions(ext, Extension.subjectAlternativeName).getNames()) {
      if (n.getTagNo() == GeneralName.dNSName) {
        out.add("DNS:" + n.getName());
      } else if (n.getTagNo() == GeneralName.iPAddress) {
        byte[] b = org.bouncycastle.asn1.DEROctetString.getInstance(n.getName()).getOctets();
        out.add("IP:" + java.net.InetAddress.getByAddress(b).getHostAddress());
      }
    }
    assertThat(req.getSubject().toString()).isEqualTo("O=system:nodes,CN=system:node:" + n(csr));
    return out;
  }

  private static String n(JsonNode csr) {
    return csr.path("spec").path("username").asText().substring("system:node:".length());
  }

  private Optional<JsonNode> nodeEvent(String reason) throws Exception {
    return Kubectl.events("default", node).stream()
        .filter(e -> reason.equals(e.path("reason").asText()))
        .findFirst();
  }

  @Test
  void untilApprovedTheSelfSignedCertificateIsServedThenTheClusterCasWithoutARestart()
      throws Exception {
    jkubelet = start();
    await().atMost(Duration.ofSeconds(120)).ignoreExceptions().until(this::ready);
    JsonNode csr =
        await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(this::servingCsrs, l -> !l.isEmpty())
            .get(0);
    String name = csr.path("metadata").path("name").asText();
    assertThat(csr.path("spec").path("usages"))
        .extracting(JsonNode::asText)
        .containsExactlyInAnyOrder("digital signature", "key encipherment", "server auth");
    assertThat(requestedNames(csr)).contains("DNS:" + node, "IP:127.0.0.1");
    assertThat(BootstrapTokens.has(csr, "Approved")).as("not approved by the controller").isFalse();

    // Pending: the API still answers, with the self-signed certificate, and the Node says why.
    X509Certificate selfSigned = presented();
    assertThat(selfSigned.getIssuerX500Principal()).isEqualTo(selfSigned.getSubjectX500Principal());
    JsonNode pending =
        await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(() -> nodeEvent("CertificatePending"), Optional::isPresent)
            .orElseThrow();
    assertThat(pending.path("type").asText()).isEqualTo("Warning");
    assertThat(pending.path("message").asText()).contains(name);

    Kubectl.createNamespace(ns);
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "talker",
            node,
            "  - {name: c, image: jkubelet/busybox:1.35, command: [sh, -c, 'echo hello-serving;"
                + " sleep 3600']}"));
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(
            () -> json("-n", ns, "get", "pod", "talker"),
            p -> "Running".equals(p.path("status").path("phase").asText()));
    long pid = jkubelet.pid();

    Kubectl.run("certificate", "approve", name).ok();

    X509Certificate ca = clusterCa();
    X509Certificate issued =
        await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(
                this::presented,
                c -> c.getIssuerX500Principal().equals(ca.getSubjectX500Principal()));
    issued.verify(ca.getPublicKey());
    assertThat(issued.getSubjectX500Principal().getName())
        .contains("CN=system:node:" + node, "O=system:nodes");
    assertThat(issued.getSubjectAlternativeNames())
        .anySatisfy(n -> assertThat(n).isEqualTo(List.of(7, "127.0.0.1")));
    assertThat(jkubelet.pid()).as("no restart").isEqualTo(pid);
    assertThat(Files.isSymbolicLink(tmp.resolve("pki/kubelet-server-current.pem"))).isTrue();

    // Through the API server, which connects to the kubelet API anew.
    assertThat(Kubectl.run("-n", ns, "logs", "talker").ok().out()).contains("hello-serving");
    assertThat(Kubectl.run("-n", ns, "exec", "talker", "--", "echo", "exec-ok").ok().out())
        .contains("exec-ok");
    assertThat(jkubelet.alive()).isTrue();
  }

  @Test
  void aDeniedServingCsrIsAWarningWithItsReasonAndANewOneFollows() throws Exception {
    jkubelet = start();
    JsonNode csr =
        await()
            .atMost(Duration.ofSeconds(120))
            .ignoreExceptions()
            .until(this::servingCsrs, l -> !l.isEmpty())
            .get(0);
    String name = csr.path("metadata").path("name").asText();

    Kubectl.run("certificate", "deny", name).ok();

    JsonNode denied =
        await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(() -> nodeEvent("CertificateDenied"), Optional::isPresent)
            .orElseThrow();
    assertThat(denied.path("type").asText()).isEqualTo("Warning");
    assertThat(denied.path("message").asText()).contains(name, "KubectlDeny");
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () ->
                servingCsrs().stream()
                    .anyMatch(c -> !c.path("metadata").path("name").asText().equals(name)));
    // The API keeps answering meanwhile, self-signed.
    X509Certificate cert = presented();
    assertThat(cert.getIssuerX500Principal()).isEqualTo(cert.getSubjectX500Principal());
    assertThat(jkubelet.alive()).isTrue();
  }

  /**
   * Opt-in ({@code JKUBELET_TEST_EXPIRED_SIGNING=1}), against a control plane whose controller
   * manager signs for less than the 5 minutes it backdates ({@code
   * JKUBELET_CLUSTER_SIGNING_DURATION=4m}): every serving certificate has expired when it arrives.
   * Each one is a Warning, and the node asks again with a doubling delay, not at once (upstream
   * files hundreds of CSRs in a few minutes), while the API goes on with its self-signed one.
   */
  @Test
  void aCertificateThatArrivesExpiredIsAWarningAndTheRequestIsRetriedWithBackoff()
      throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        "1".equals(System.getenv("JKUBELET_TEST_EXPIRED_SIGNING")),
        "opt-in: JKUBELET_TEST_EXPIRED_SIGNING=1 with a signing duration under 5 minutes");
    jkubelet = start();
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(this::servingCsrs, l -> !l.isEmpty());
    // An admin who approves every serving CSR of the node as soon as it appears, for 90 s.
    java.time.Instant end = java.time.Instant.now().plus(Duration.ofSeconds(90));
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              for (JsonNode c : servingCsrs()) {
                if (!BootstrapTokens.has(c, "Approved")) {
                  Kubectl.run("certificate", "approve", c.path("metadata").path("name").asText());
                }
              }
              return java.time.Instant.now().isAfter(end);
            });

    JsonNode unusable = nodeEvent("CertificateUnusable").orElseThrow();
    assertThat(unusable.path("type").asText()).isEqualTo("Warning");
    assertThat(unusable.path("message").asText()).contains("had expired when it arrived");
    int csrs = servingCsrs().size();
    // 2, 4, 8, 16, 32 s apart (and the wait for each): at most 7 in 90 s.
    assertThat(csrs).as("serving CSRs filed in 90 s").isBetween(3, 7);
    X509Certificate cert = presented();
    assertThat(cert.getIssuerX500Principal()).isEqualTo(cert.getSubjectX500Principal());
    assertThat(jkubelet.alive()).isTrue();
  }

  private static final class TrustAll implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
