package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * {@code kubeadm init} and {@code kubeadm join} v1.20.2 with jkubelet as the kubelet of both nodes,
 * through deploy/scripts/kubeadm-cluster.sh, as an operator follows the README: the control plane
 * (etcd, kube-apiserver, kube-controller-manager, kube-scheduler) runs as static pods on the
 * control-plane node's jkubelet from the manifests kubeadm wrote, the worker joins with a bootstrap
 * token and gets its client certificate from the CSR API, both nodes are Ready, and a Deployment's
 * pods run on the worker (with their service account token, a tmpfs volume mounted in the worker's
 * own mount namespace, where its own engine runs). Both jkubelets run with the package's own paths:
 * no {@code --root-dir}, so {@code /var/lib/kubelet} and its {@code pki}. Needs root, kubeadm and
 * the control plane's binaries in the build cache (deploy/scripts/k8s-up.sh builds them); skipped
 * without kubeadm. Takes over /etc/kubernetes and /var/lib/kubelet on this machine, and cleans them
 * with {@code kubeadm reset} at the end.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class KubeadmE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path CACHE =
      Path.of(System.getenv().getOrDefault("JKUBELET_K8S_CACHE", "/var/cache/jkubelet-k8s"), "bin");
  private static final String CP = "jkubeadm-cp";
  private static final String WORKER = "jkubeadm-worker";

  private Path state;
  private Path kubeconfig;
  private boolean up;

  private record Run(int code, String out) {
    Run ok() {
      if (code != 0) {
        throw new AssertionError("exit code " + code + ": " + out);
      }
      return this;
    }
  }

  private static Run run(Duration limit, List<String> cmd)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("kubeadm-it", ".out");
    try {
      Process p =
          new ProcessBuilder(cmd)
              .redirectOutput(out.toFile())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      if (!p.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(cmd + " did not finish in " + limit);
      }
      return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private Run script(String verb) throws IOException, InterruptedException {
    return run(
        Duration.ofMinutes(5),
        List.of(Kubectl.script("kubeadm-cluster.sh").toString(), verb, state.toString()));
  }

  /** The shared kubectl runner, against the kubeadm cluster with the cache's kubectl. */
  private Kubectl.Result kubectl(String... args) throws IOException, InterruptedException {
    return Kubectl.runAgainst(CACHE.resolve("kubectl"), kubeconfig, args);
  }

  private JsonNode json(String... args) throws Exception {
    List<String> a = new ArrayList<>(List.of(args));
    a.addAll(List.of("-o", "json"));
    return JSON.readTree(kubectl(a.toArray(String[]::new)).ok().out());
  }

  @BeforeAll
  void up() throws Exception {
    for (String b : List.of("kubeadm", "kubectl", "kube-apiserver", "kube-controller-manager")) {
      assumeTrue(
          Files.isExecutable(CACHE.resolve(b)),
          "no "
              + CACHE.resolve(b)
              + ": kubeadm and the control plane v1.20.2 are built by deploy/scripts/k8s-up.sh");
    }
    state = Files.createTempDirectory("jkubelet-kubeadm");
    long t0 = System.nanoTime();
    Run r = script("up");
    up = true;
    r.ok();
    kubeconfig = Path.of(r.out().strip().lines().reduce((a, b) -> b).orElseThrow());
    System.out.printf(
        "KubeadmE2EIT: kubeadm init and join, both nodes Ready, in %.1f s%n",
        (System.nanoTime() - t0) / 1e9);
  }

  @AfterAll
  void down() throws Exception {
    if (state == null || !up) {
      return;
    }
    script("down").ok();
    // kubeadm reset and what it leaves are gone.
    assertThat(Path.of("/etc/kubernetes")).doesNotExist();
    assertThat(Path.of("/var/lib/kubelet")).doesNotExist();
  }

  /** Node name to its Ready condition's status. */
  private Map<String, String> readiness() throws Exception {
    Map<String, String> out = new TreeMap<>();
    for (JsonNode n : json("get", "nodes").path("items")) {
      String ready = "";
      for (JsonNode c : n.path("status").path("conditions")) {
        if (c.path("type").asText().equals("Ready")) {
          ready = c.path("status").asText();
        }
      }
      out.put(n.path("metadata").path("name").asText(), ready);
    }
    return out;
  }

  /** The jkubelet that kubeadm-cluster.sh started for a node, by its recorded PID. */
  private String kubeletCommandLine(String node) throws IOException {
    String pid = Files.readString(state.resolve(node).resolve("kubelet.pid")).strip();
    return Files.readString(Path.of("/proc", pid, "cmdline")).replace('\0', ' ');
  }

  @Test
  void theControlPlaneRunsAsStaticPodsAndAJoinedWorkerRunsADeploymentsPods() throws Exception {
    assertThat(readiness()).isEqualTo(Map.of(CP, "True", WORKER, "True"));
    for (String node : List.of(CP, WORKER)) {
      assertThat(kubeletCommandLine(node))
          .contains("io.jkubelet.agent.cli.Main")
          .contains("--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf")
          .contains("--config=/var/lib/kubelet/config.yaml")
          .contains("--network-plugin=cni")
          .doesNotContain("--root-dir")
          .doesNotContain("--cert-dir");
    }
    // The package's paths: each node's client certificate in its /var/lib/kubelet/pki (the
    // worker's /var/lib/kubelet is its own directory, bound there in its mount namespace; its
    // link names the certificate by that path, so it is not followed from here).
    assertThat(Path.of("/var/lib/kubelet/pki/kubelet-client-current.pem")).exists();
    Path workerLink =
        state.resolve(WORKER).resolve("var-lib-kubelet/pki/kubelet-client-current.pem");
    assertThat(workerLink).isSymbolicLink();
    assertThat(Files.readSymbolicLink(workerLink).toString())
        .startsWith("/var/lib/kubelet/pki/kubelet-client-");

    // The control plane: the mirror pods of the static pods kubeadm wrote, on the first node.
    Map<String, String> controlPlane = new TreeMap<>();
    for (JsonNode p : json("-n", "kube-system", "get", "pods").path("items")) {
      if (p.path("spec").path("nodeName").asText().equals(CP)
          && p.path("metadata")
              .path("annotations")
              .path("kubernetes.io/config.mirror")
              .isTextual()) {
        controlPlane.put(
            p.path("metadata").path("labels").path("component").asText(),
            p.path("status").path("phase").asText());
      }
    }
    assertThat(controlPlane)
        .isEqualTo(
            Map.of(
                "etcd", "Running",
                "kube-apiserver", "Running",
                "kube-controller-manager", "Running",
                "kube-scheduler", "Running"));

    // The worker joined with a bootstrap token: its client certificate came from a CSR that the
    // token's user filed and the controller manager approved and signed.
    List<String> csrs = new ArrayList<>();
    for (JsonNode csr : json("get", "csr").path("items")) {
      csrs.add(
          csr.path("spec").path("username").asText().replaceAll(":[a-z0-9]{6}$", ":<token-id>")
              + " "
              + csr.path("status").path("certificate").isTextual());
    }
    assertThat(csrs).contains("system:bootstrap:<token-id> true");

    kubectl("create", "namespace", "kubeadm-e2e").ok();
    Path deployment = Files.createTempFile("deployment", ".yaml");
    Files.writeString(
        deployment,
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, namespace: kubeadm-e2e}
        spec:
          replicas: 2
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec:
              nodeSelector: {kubernetes.io/hostname: %s}
              containers:
              - name: web
                image: jkubelet/busybox:1.35
                command: [sh, -c, 'cat /var/run/secrets/kubernetes.io/serviceaccount/namespace; echo; trap "exit 0" TERM; sleep 3600 & wait']
        """
            .formatted(WORKER));
    try {
      kubectl("apply", "-f", deployment.toString()).ok();
    } finally {
      Files.delete(deployment);
    }
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofSeconds(2))
        .until(() -> running("kubeadm-e2e").size() == 2);
    assertThat(running("kubeadm-e2e").values()).containsOnly(WORKER);
    // Each pod read its service account token's volume, mounted by the worker's jkubelet.
    for (String pod : running("kubeadm-e2e").keySet()) {
      assertThat(kubectl("-n", "kubeadm-e2e", "logs", pod).ok().out().strip())
          .isEqualTo("kubeadm-e2e");
    }
  }

  /** The namespace's Running pods and their nodes. */
  private Map<String, String> running(String ns) throws Exception {
    Map<String, String> out = new TreeMap<>();
    for (JsonNode p : json("-n", ns, "get", "pods").path("items")) {
      if (p.path("status").path("phase").asText().equals("Running")) {
        out.put(p.path("metadata").path("name").asText(), p.path("spec").path("nodeName").asText());
      }
    }
    return out;
  }
}
