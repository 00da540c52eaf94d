package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jkubelet.agent.runtime.Labels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Client-certificate rotation on a running node: joined by TLS bootstrap with {@code
 * --rotate-certificates}, the node renews its certificate twice (CSRs sent as the node, approved as
 * kubeadm's {@code selfnodeclient} binding allows) while it stays Ready, its Lease keeps being
 * renewed, and its pod is not restarted. The first certificate expires during the test, so the
 * node's connections must have moved to a renewed one.
 *
 * <p>Opt-in, because it needs short certificates and takes several minutes: run it with {@code
 * JKUBELET_TEST_CERT_ROTATION=1} against a control plane started with {@code
 * JKUBELET_CLUSTER_SIGNING_DURATION=10m} (see deploy/scripts/k8s-up.sh). The v1.20 signer backdates
 * a certificate by 5 minutes, so a 10-minute certificate is good for 5 more minutes when it is
 * issued and is renewed after 2 to 4 minutes: the test takes about 6 minutes. {@code 8m} is the
 * shortest duration that still works (3 minutes left on arrival, renewed after 0.6 to 2.2 minutes;
 * under about 7.2 minutes, 70 % of the lifetime falls before the arrival and renewals follow each
 * other at once): about 3.5 minutes. It cannot run on the CI's shared control plane, whose other
 * bootstrapped nodes do not rotate and would lose their certificates within minutes.
 *
 * <p>It prints its figures: how long the two renewals took and the oldest Lease renewal it saw.
 */
@Timeout(value = 30, unit = java.util.concurrent.TimeUnit.MINUTES)
class CertificateRotationE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final String node = "rot-" + UUID.randomUUID().toString().substring(0, 8);
  private final String ns = "rot-" + UUID.randomUUID().toString().substring(0, 8);
  private final BootstrapTokens tokens = new BootstrapTokens();
  private Path tmp;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeEach
  void setUp() throws Exception {
    Assumptions.assumeTrue(
        "1".equals(System.getenv("JKUBELET_TEST_CERT_ROTATION")),
        "opt-in: JKUBELET_TEST_CERT_ROTATION=1 with a control plane of short certificates");
    tmp = Files.createTempDirectory("jkubelet-rotation");
  }

  @AfterEach
  void tearDown() throws Exception {
    if (tmp == null) {
      return;
    }
    if (jkubelet != null) {
      jkubelet.close();
    }
    tokens.close();
    Kubectl.run("delete", "namespace", ns, "--wait=false");
    Kubectl.run("delete", "node", node, "--wait=false");
    for (JsonNode csr : BootstrapTokens.nodeClientCsrs()) {
      String user = csr.path("spec").path("username").asText();
      if (user.equals("system:node:" + node) || user.startsWith("system:bootstrap:" + tokens.id)) {
        Kubectl.run("delete", "csr", csr.path("metadata").path("name").asText());
      }
    }
    TestDocker.removeAll(TestDocker.client(), Labels.NODE, node);
    TestMounts.unmountUnder(tmp);
  }

  private JsonNode json(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("-o", "json"));
    return JSON.readTree(Kubectl.run(all.toArray(String[]::new)).ok().out());
  }

  private boolean ready() throws Exception {
    for (JsonNode c : json("get", "node", node).path("status").path("conditions")) {
      if ("Ready".equals(c.path("type").asText())) {
        return "True".equals(c.path("status").asText());
      }
    }
    return false;
  }

  private long certificates(Path certDir) throws Exception {
    try (Stream<Path> files = Files.list(certDir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.matches("kubelet-client-\\d{4}(-\\d\\d){5}\\.pem"))
          .count();
    }
  }

  @Test
  void theNodeRotatesItsCertificateTwiceWhileReadyWithoutRestartingItsPod() throws Exception {
    Path bootstrap =
        BootstrapTokens.kubeconfig(tmp.resolve("bootstrap-kubelet.conf"), tokens.create());
    Path certDir = tmp.resolve("pki");
    jkubelet =
        new JkubeletProcess(
                node,
                Files.createDirectories(tmp.resolve("manifests")),
                tmp.resolve("root"),
                tmp.resolve("jkubelet.log"),
                List.of(
                    "--node-ip",
                    "127.0.0.1",
                    "--bootstrap-kubeconfig",
                    bootstrap.toString(),
                    "--kubeconfig",
                    tmp.resolve("kubelet.conf").toString(),
                    "--cert-dir",
                    certDir.toString(),
                    "--rotate-certificates"))
            .start();
    await().atMost(Duration.ofSeconds(120)).ignoreExceptions().until(this::ready);
    Kubectl.createNamespace(ns);
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "sleeper",
            node,
            "  - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600']}"));
    JsonNode running =
        await()
            .atMost(Duration.ofSeconds(120))
            .ignoreExceptions()
            .until(
                () -> json("-n", ns, "get", "pod", "sleeper"),
                p -> "Running".equals(p.path("status").path("phase").asText()));
    String containerId =
        running.path("status").path("containerStatuses").get(0).path("containerID").asText();
    assertThat(containerId).isNotEmpty();

    // Until two renewals are stored: the node Ready and its Lease fresh at every look.
    List<String> problems = new ArrayList<>();
    Instant began = Instant.now();
    Duration[] oldestLease = {Duration.ZERO};
    await()
        .atMost(Duration.ofMinutes(20))
        .pollInterval(Duration.ofSeconds(10))
        .until(
            () -> {
              if (!ready()) {
                problems.add(Instant.now() + ": node not Ready");
              }
              String renew =
                  json("-n", "kube-node-lease", "get", "lease", node)
                      .path("spec")
                      .path("renewTime")
                      .asText();
              Instant renewed = Instant.parse(renew.endsWith("Z") ? renew : renew + "Z");
              Duration age = Duration.between(renewed, Instant.now());
              if (age.compareTo(oldestLease[0]) > 0) {
                oldestLease[0] = age;
              }
              if (age.compareTo(Duration.ofSeconds(40)) > 0) {
                problems.add(Instant.now() + ": Lease last renewed at " + renewed);
              }
              return certificates(certDir) >= 3;
            });
    assertThat(problems).isEmpty();
    System.out.printf(
        "rotation figures: %d certificates stored in %s; oldest Lease renewTime seen %s%n",
        certificates(certDir), Duration.between(began, Instant.now()), oldestLease[0]);

    List<JsonNode> renewals =
        BootstrapTokens.nodeClientCsrs().stream()
            .filter(c -> c.path("spec").path("username").asText().equals("system:node:" + node))
            .toList();
    assertThat(renewals).as("renewals sent as the node, approved").hasSizeGreaterThanOrEqualTo(2);
    assertThat(renewals).allMatch(c -> BootstrapTokens.has(c, "Approved"));
    assertThat(jkubelet.log()).contains("API connections made with the previous certificate");

    JsonNode pod = json("-n", ns, "get", "pod", "sleeper");
    JsonNode status = pod.path("status").path("containerStatuses").get(0);
    assertThat(status.path("restartCount").asInt()).isZero();
    assertThat(status.path("containerID").asText()).isEqualTo(containerId);
    // The pods' watch moved to the renewed certificate: a pod bound now starts.
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "after",
            node,
            "  - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600']}"));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> json("-n", ns, "get", "pod", "after"),
            p -> "Running".equals(p.path("status").path("phase").asText()));
    assertThat(jkubelet.alive()).isTrue();
  }
}
