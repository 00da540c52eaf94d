package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.jkubelet.agent.runtime.Labels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * TLS bootstrap as {@code kubeadm join} sets a kubelet up: a bootstrap kubeconfig with a bootstrap
 * token, {@code --kubeconfig} not there yet, kubeadm's RBAC (made by {@link BootstrapTokens}). The
 * node requests its client certificate, which the controller manager approves and signs, writes its
 * kubeconfig naming {@code kubelet-client-current.pem}, and registers; restarted, it uses the
 * certificate without another request. A refused token and a certificate directory that cannot be
 * written are reported as a user sees them.
 */
@Timeout(300)
class TlsBootstrapE2EIT {
  private final String node = "tls-" + UUID.randomUUID().toString().substring(0, 8);
  private final BootstrapTokens tokens = new BootstrapTokens();
  private final List<JkubeletProcess> started = new ArrayList<>();
  private Path tmp;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeEach
  void setUp() throws Exception {
    tmp = Files.createTempDirectory("jkubelet-tls-bootstrap");
  }

  @AfterEach
  void tearDown() throws Exception {
    for (JkubeletProcess p : started) {
      p.close();
    }
    tokens.close();
    Kubectl.run("delete", "node", node, "--wait=false");
    for (JsonNode csr : csrsOf(node)) {
      Kubectl.run("delete", "csr", csr.path("metadata").path("name").asText());
    }
    TestDocker.removeAll(TestDocker.client(), Labels.NODE, node);
    TestMounts.unmountUnder(tmp);
  }

  private JkubeletProcess jkubelet(String... flags) throws Exception {
    JkubeletProcess p =
        new JkubeletProcess(
            node,
            Files.createDirectories(tmp.resolve("manifests")),
            tmp.resolve("root"),
            tmp.resolve("jkubelet.log"),
            Stream.concat(Stream.of("--node-ip", "127.0.0.1"), Stream.of(flags)).toList());
    started.add(p);
    jkubelet = p;
    return p.start();
  }

  /** The node-client CSRs whose certificate is (or will be) for this node. */
  private static List<JsonNode> csrsOf(String node) throws Exception {
    String bootstrapped = "system:node:" + node;
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode csr : BootstrapTokens.nodeClientCsrs()) {
      X509Certificate cert = BootstrapTokens.issued(csr);
      String user = csr.path("spec").path("username").asText();
      if (user.equals(bootstrapped)
          || (cert != null && cert.getSubjectX500Principal().getName().contains(bootstrapped))) {
        out.add(csr);
      }
    }
    return out;
  }

  /** Waits for the Node to be Ready; a crashed agent fails it at once (see JkubeletProcess). */
  private void awaitReady() {
    await().atMost(Duration.ofSeconds(120)).ignoreExceptions().until(() -> Kubectl.nodeReady(node));
  }

  private Instant leaseRenewTime() throws Exception {
    String t =
        Kubectl.run(
                "-n", "kube-node-lease", "get", "lease", node, "-o", "jsonpath={.spec.renewTime}")
            .ok()
            .out()
            .trim();
    return Instant.parse(t.endsWith("Z") ? t : t + "Z");
  }

  @Test
  void aNodeJoinsWithABootstrapTokenAndARestartReusesItsCertificate() throws Exception {
    Path bootstrap =
        BootstrapTokens.kubeconfig(tmp.resolve("bootstrap-kubelet.conf"), tokens.create());
    Path kubeconfig = tmp.resolve("kubelet.conf");
    Path certDir = tmp.resolve("pki");
    String[] flags = {
      "--bootstrap-kubeconfig",
      bootstrap.toString(),
      "--kubeconfig",
      kubeconfig.toString(),
      "--cert-dir",
      certDir.toString(),
      "--rotate-certificates"
    };

    jkubelet(flags);
    awaitReady();

    // kubectl get csr: one node-client CSR from the bootstrap token, approved and issued with the
    // node's identity.
    List<JsonNode> csrs = csrsOf(node);
    assertThat(csrs).hasSize(1);
    JsonNode csr = csrs.get(0);
    assertThat(csr.path("spec").path("username").asText())
        .isEqualTo("system:bootstrap:" + tokens.id);
    assertThat(BootstrapTokens.has(csr, "Approved")).isTrue();
    X509Certificate cert = BootstrapTokens.issued(csr);
    assertThat(cert).isNotNull();
    assertThat(cert.getSubjectX500Principal().getName())
        .contains("CN=system:node:" + node)
        .contains("O=system:nodes");

    // The files, as upstream names them.
    Path current = certDir.resolve("kubelet-client-current.pem");
    assertThat(Files.isSymbolicLink(current)).isTrue();
    assertThat(Files.readSymbolicLink(current).getFileName().toString())
        .matches("kubelet-client-\\d{4}(-\\d\\d){5}\\.pem");
    assertThat(Files.exists(certDir.resolve("kubelet-client.key.tmp")))
        .as("the request's key is gone once its certificate came")
        .isFalse();
    String written = Files.readString(kubeconfig);
    assertThat(written)
        .contains("client-certificate: " + current)
        .contains("client-key: " + current)
        .doesNotContain("token");

    // Restarted with the kubeconfig it wrote: no new request, and the node heartbeats again.
    // SIGTERM: the shutdown hooks run, then the process exits 0, as upstream's kubelet.
    assertThat(jkubelet.stop()).isZero();
    Instant restarted = Instant.now();
    jkubelet(flags);
    // The new process's own heartbeat, not the stopped one's last.
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(
            () ->
                jkubelet.log().contains("skipping bootstrap")
                    && leaseRenewTime().isAfter(restarted));
    awaitReady();
    assertThat(csrsOf(node)).as("no new CSR after the restart").hasSize(1);
  }

  @Test
  void aRefusedBootstrapTokenIsReportedNamingTheFileAndRetried() throws Exception {
    Path bootstrap =
        BootstrapTokens.kubeconfig(
            tmp.resolve("bootstrap-kubelet.conf"), "abcdef.0123456789abcdef");

    jkubelet(
        "--bootstrap-kubeconfig",
        bootstrap.toString(),
        "--kubeconfig",
        tmp.resolve("kubelet.conf").toString());

    String refused = "refused the credentials of bootstrap kubeconfig " + bootstrap;
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> jkubelet.log().split(java.util.regex.Pattern.quote(refused), -1).length > 2);
    assertThat(jkubelet.alive()).as("retrying, not crash-looping").isTrue();
    assertThat(Files.exists(tmp.resolve("kubelet.conf"))).isFalse();
  }

  @Test
  void aCertificateDirectoryThatCannotBeWrittenExits2NamingIt() throws Exception {
    Path file = Files.writeString(tmp.resolve("not-a-directory"), "");
    Path certDir = file.resolve("pki");

    JkubeletProcess p =
        jkubelet(
            "--bootstrap-kubeconfig",
            BootstrapTokens.kubeconfig(
                    tmp.resolve("bootstrap-kubelet.conf"), "abcdef.0123456789abcdef")
                .toString(),
            "--kubeconfig",
            tmp.resolve("kubelet.conf").toString(),
            "--cert-dir",
            certDir.toString());

    assertThat(p.awaitExit(Duration.ofSeconds(90))).isEqualTo(2);
    assertThat(p.log()).contains("--cert-dir").contains(certDir.toString());
  }
}
