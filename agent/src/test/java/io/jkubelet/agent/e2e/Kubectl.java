package io.jkubelet.agent.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * kubectl against the test API server, as an operator would run it. The kubeconfig and kubectl come
 * from the environment that deploy/scripts/test.sh sets up with deploy/scripts/k8s-up.sh.
 */
final class Kubectl {
  /** The result of one kubectl run. */
  record Result(int code, String out, String err) {
    Result ok() {
      if (code != 0) {
        throw new AssertionError("kubectl failed (" + code + "): " + err + out);
      }
      return this;
    }
  }

  static String env(String name) {
    String v = System.getenv(name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException(
          name
              + " is not set: cluster tests need a real API server; run them through"
              + " deploy/scripts/test.sh, which starts one with deploy/scripts/k8s-up.sh");
    }
    return v;
  }

  /** The admin's kubeconfig: kubectl in the tests acts as the operator. */
  static Path kubeconfig() {
    return Path.of(env("JKUBELET_TEST_KUBECONFIG"));
  }

  /** One of deploy/scripts. */
  static Path script(String name) {
    return Path.of(System.getProperty("jkubelet.scripts", "../deploy/scripts"), name);
  }

  /**
   * A kubeconfig with the identity of node {@code node} ({@code system:node:<node>} in {@code
   * system:nodes}), made by deploy/scripts/k8s-node-kubeconfig.sh for the control plane in {@code
   * JKUBELET_TEST_K8S_STATE}: what jkubelet joins with, so the Node authorizer and NodeRestriction
   * hold it to what a kubelet may do.
   */
  static Path nodeKubeconfig(String node) throws IOException, InterruptedException {
    Path out = Files.createTempFile("node-kubeconfig", ".out");
    try {
      Process p =
          new ProcessBuilder(
                  script("k8s-node-kubeconfig.sh").toString(), env("JKUBELET_TEST_K8S_STATE"), node)
              .redirectOutput(out.toFile())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new AssertionError("k8s-node-kubeconfig.sh failed for node " + node);
      }
      return Path.of(Files.readString(out).trim());
    } finally {
      Files.deleteIfExists(out);
    }
  }

  /**
   * Kills the API server of the control plane in {@code JKUBELET_TEST_K8S_STATE} and waits until it
   * is gone: an outage starts at once. NOTE: SIGKILL, because on SIGTERM the API server first
   * drains the controller manager's and the scheduler's watches, for up to 60 s.
   */
  static void killApiServer() throws IOException {
    long pid =
        Long.parseLong(
            Files.readString(Path.of(env("JKUBELET_TEST_K8S_STATE"), "apiserver.pid")).trim());
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    await().atMost(Duration.ofSeconds(30)).until(() -> ProcessHandle.of(pid).isEmpty());
  }

  /** Runs deploy/scripts/k8s-up.sh again, e.g. to bring back an API server a test stopped. */
  static void controlPlaneUp() throws IOException, InterruptedException {
    int code =
        new ProcessBuilder(script("k8s-up.sh").toString(), env("JKUBELET_TEST_K8S_STATE"))
            .inheritIO()
            .start()
            .waitFor();
    if (code != 0) {
      throw new AssertionError("k8s-up.sh failed (" + code + ")");
    }
  }

  /** Whether the Node is Ready, as {@code kubectl get node} lists it. */
  static boolean nodeReady(String node) throws IOException, InterruptedException {
    return run("get", "node", node, "--no-headers").ok().out().contains(" Ready ");
  }

  /** Waits up to a minute for the Node to be Ready. */
  static void awaitNodeReady(String node) {
    await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> nodeReady(node));
  }

  /**
   * Creates namespace {@code ns} and waits for the {@code default} ServiceAccount that the
   * controller manager makes in it, without which the ServiceAccount admission plugin refuses pods.
   */
  static void createNamespace(String ns) throws IOException, InterruptedException {
    run("create", "namespace", ns).ok();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> run("-n", ns, "get", "serviceaccount", "default").code() == 0);
  }

  static Result run(String... args) throws IOException, InterruptedException {
    return runWithInput(null, args);
  }

  /** Runs kubectl with {@code stdin} (or none) and the given arguments. */
  static Result runWithInput(String stdin, String... args)
      throws IOException, InterruptedException {
    return runWithInput(Path.of(env("JKUBELET_TEST_KUBECTL")), kubeconfig(), stdin, args);
  }

  /**
   * Runs the kubectl {@code binary} against {@code kubeconfig}: a cluster other than the test API
   * server, such as the one kubeadm makes ({@code KubeadmE2EIT}).
   */
  static Result runAgainst(Path binary, Path kubeconfig, String... args)
      throws IOException, InterruptedException {
    return runWithInput(binary, kubeconfig, null, args);
  }

  private static Result runWithInput(Path binary, Path kubeconfig, String stdin, String... args)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.toString());
    cmd.add("--kubeconfig");
    cmd.add(kubeconfig.toString());
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile("kubectl", ".out");
    Path err = Files.createTempFile("kubectl", ".err");
    try {
      ProcessBuilder pb =
          new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
      if (stdin == null) {
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      }
      Process p = pb.start();
      if (stdin != null) {
        try (var in = p.getOutputStream()) {
          in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
      }
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("kubectl " + String.join(" ", args) + " did not finish in 120 s");
      }
      return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** {@code kubectl -n NS apply -f -} with the YAML on stdin. */
  static void apply(String namespace, String yaml) throws IOException, InterruptedException {
    // The ServiceAccount admission plugin answers ServerTimeout "retry after the token is
    // automatically created" while its view of the token secrets lags (after an API server
    // restart, which some tests cause): retried as it asks.
    Result r =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> runWithInput(yaml, "-n", namespace, "apply", "-f", "-"),
                res -> res.code() == 0 || !res.err().contains("retry after the token"));
    r.ok();
  }

  /** The events of an object in {@code namespace}, as {@code kubectl get events} lists them. */
  /** {@code kubectl describe pod}: what a user reads, events included. */
  static String describe(String namespace, String pod) throws IOException, InterruptedException {
    return run("-n", namespace, "describe", "pod", pod).ok().out();
  }

  static List<com.fasterxml.jackson.databind.JsonNode> events(String namespace, String name)
      throws Exception {
    com.fasterxml.jackson.databind.JsonNode list =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(
                run(
                        "-n",
                        namespace,
                        "get",
                        "events",
                        "--field-selector",
                        "involvedObject.name=" + name,
                        "-o",
                        "json")
                    .ok()
                    .out());
    List<com.fasterxml.jackson.databind.JsonNode> out = new ArrayList<>();
    list.path("items").forEach(out::add);
    return out;
  }

  /**
   * A pod bound to {@code node} by {@code nodeName} (no scheduler needed), with a short grace
   * period (and the service-account token volume that admission adds); {@code containers} is the
   * YAML list of its containers, each line indented by two spaces.
   */
  static String boundPod(String name, String node, String containers) {
    return boundPod(name, node, "", containers);
  }

  /** The same, with {@code volumes}: the YAML list of its volumes, indented as containers are. */
  static String boundPod(String name, String node, String volumes, String containers) {
    return """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s}
        spec:
          nodeName: %s
          terminationGracePeriodSeconds: 2
        %s  containers:
        %s
        """
        .formatted(
            name, node, volumes.isEmpty() ? "" : "  volumes:\n" + volumes + "\n", containers);
  }

  private Kubectl() {}
}
