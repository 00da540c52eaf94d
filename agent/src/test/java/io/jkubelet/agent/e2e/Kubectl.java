package io.jkubelet.agent.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

  static Path kubeconfig() {
    return Path.of(env("JKUBELET_TEST_KUBECONFIG"));
  }

  static Result run(String... args) throws IOException, InterruptedException {
    return runWithInput(null, args);
  }

  /** Runs kubectl with {@code stdin} (or none) and the given arguments. */
  static Result runWithInput(String stdin, String... args)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(env("JKUBELET_TEST_KUBECTL"));
    cmd.add("--kubeconfig");
    cmd.add(kubeconfig().toString());
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
    runWithInput(yaml, "-n", namespace, "apply", "-f", "-").ok();
  }

  /**
   * A pod bound to {@code node} by {@code nodeName} (no scheduler needed), with a short grace
   * period and no service account token; {@code containers} is the YAML list of its containers,
   * each line indented by two spaces.
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
          automountServiceAccountToken: false
        %s  containers:
        %s
        """
        .formatted(
            name, node, volumes.isEmpty() ? "" : "  volumes:\n" + volumes + "\n", containers);
  }

  private Kubectl() {}
}
