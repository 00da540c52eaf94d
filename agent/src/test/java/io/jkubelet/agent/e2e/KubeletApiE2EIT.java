package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The kubelet API on the real test cluster, reached as the API server reaches a kubelet: {@code
 * kubectl logs} (with {@code -f}, {@code --previous}, {@code --tail}, {@code --since}) through the
 * API server with RBAC; jkubelet runs with the cluster's CA as its client CA, the token webhook and
 * authorization mode Webhook, so direct anonymous and unauthorized requests are refused.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KubeletApiE2EIT {
  @RegisterExtension
  static final ClusterNode cluster =
      new ClusterNode(
          "api",
          List.of(
              "--client-ca-file",
              Path.of(Kubectl.env("JKUBELET_TEST_K8S_STATE"), "pki", "ca.crt").toString(),
              "--authentication-token-webhook",
              "--anonymous-auth=false",
              "--authorization-mode",
              "Webhook"));

  @BeforeAll
  void pods() throws Exception {
    Kubectl.apply(
        cluster.ns,
        Kubectl.boundPod(
            "printer",
            cluster.node,
            """
              - name: app
                image: jkubelet/busybox:1.35
                command: ["sh", "-c", "for i in 1 2 3 4 5; do echo line $i; done; sleep 3600"]
            """));
    Kubectl.apply(
        cluster.ns,
        Kubectl.boundPod(
            "crasher",
            cluster.node,
            """
              - name: app
                image: jkubelet/busybox:1.35
                command: ["sh", "-c", "echo run at $(date +%s%N); exit 1"]
            """));
    Kubectl.apply(
        cluster.ns,
        Kubectl.boundPod(
            "mixed",
            cluster.node,
            "  - {name: state, emptyDir: {}}",
            """
              - name: app
                image: jkubelet/busybox:1.35
                command: ["sh", "-c", "%s"]
                volumeMounts: [{name: state, mountPath: /state}]
            """
                .formatted(MIXED.replace("\\", "\\\\").replace("\"", "\\\""))));
    Kubectl.apply(
        cluster.ns,
        Kubectl.boundPod(
            "counter",
            cluster.node,
            """
              - name: app
                image: jkubelet/busybox:1.35
                command: ["sh", "-c", "sleep 2; for i in 1 2 3; do echo tick $i; sleep 1; done"]
            """));
  }

  /**
   * Output with quotes, backslashes, HTML, UTF-8, stderr, a line over 16 KiB and no last newline;
   * the first instance exits 1, the next one stays (so the first stays the previous one).
   */
  private static final String MIXED =
      "[ -e /state/ran ] && exec sleep 3600; touch /state/ran;"
          + " printf 'a \"quote\" \\\\ back <tag> & é\\n'; echo err >&2;"
          + " head -c 20000 /dev/zero | tr '\\0' x; echo; for i in 1 2 3 4 5; do echo line $i;"
          + " done; printf partial; exit 1";

  private static Kubectl.Result kubectl(String... args) throws Exception {
    String[] all = new String[args.length + 2];
    all[0] = "-n";
    all[1] = cluster.ns;
    System.arraycopy(args, 0, all, 2, args.length);
    return Kubectl.run(all);
  }

  @Test
  void kubectlLogsWithTailAndSince() throws Exception {
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(() -> kubectl("logs", "printer").ok().out().contains("line 5"));
    assertThat(kubectl("logs", "printer").ok().out())
        .isEqualTo("line 1\nline 2\nline 3\nline 4\nline 5\n");
    assertThat(kubectl("logs", "printer", "--tail=2").ok().out()).isEqualTo("line 4\nline 5\n");
    assertThat(kubectl("logs", "printer", "--since=1h").ok().out()).contains("line 1", "line 5");
    assertThat(kubectl("logs", "printer", "--timestamps", "--tail=1").ok().out())
        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d+Z line 5\n");
  }

  @Test
  void kubectlLogsFollowStreamsUntilTheContainerEnds() throws Exception {
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(
            () ->
                kubectl(
                        "get",
                        "pod",
                        "counter",
                        "-o",
                        "jsonpath={.status.containerStatuses[0].state.running}")
                    .ok()
                    .out()
                    .contains("startedAt"));
    Kubectl.Result r = kubectl("logs", "-f", "counter");
    assertThat(r.ok().out()).isEqualTo("tick 1\ntick 2\ntick 3\n");
  }

  @Test
  void kubectlLogsPreviousShowsTheLastTerminatedInstance() throws Exception {
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(
            () ->
                Integer.parseInt(
                        kubectl(
                                "get",
                                "pod",
                                "crasher",
                                "-o",
                                "jsonpath={.status.containerStatuses[0].restartCount}")
                            .ok()
                            .out()
                            .trim())
                    >= 1);
    assertThat(kubectl("logs", "crasher", "--previous").ok().out()).startsWith("run at ");
  }

  /**
   * What a user compares: {@code kubectl logs} of the last terminated instance with tail, since and
   * timestamps gives exactly what {@code docker logs} of that container gives.
   */
  @Test
  void kubectlLogsPreviousWithTailSinceAndTimestampsGiveDockerLogsBytes() throws Exception {
    String previous =
        await()
            .atMost(Duration.ofSeconds(120))
            .ignoreExceptions()
            .until(
                () ->
                    kubectl(
                            "get",
                            "pod",
                            "mixed",
                            "-o",
                            "jsonpath={.status.containerStatuses[0].lastState.terminated.containerID}")
                        .ok()
                        .out()
                        .trim(),
                s -> s.startsWith("docker://"))
            .substring("docker://".length());
    String stamped = kubectl("logs", "mixed", "--previous", "--timestamps").ok().out();
    assertThat(stamped).isEqualTo(dockerLogs("--timestamps", previous));
    assertThat(stamped).contains(" a \"quote\" \\ back <tag> & é\n", " err\n").endsWith(" partial");
    String since = stamped.lines().skip(2).findFirst().orElseThrow().substring(0, 19) + "Z";

    String whole = kubectl("logs", "mixed", "--previous").ok().out();
    assertThat(whole).isEqualTo(dockerLogs(previous));
    // Docker splits the long line into parts of 16 KiB, and the stderr line, from another pipe,
    // may come between them (as in docker logs).
    assertThat(whole.replace("err\n", "")).contains("x".repeat(20000) + "\n");
    assertThat(kubectl("logs", "mixed", "--previous", "--tail=3", "--timestamps").ok().out())
        .isEqualTo(dockerLogs("--tail", "3", "--timestamps", previous));
    assertThat(kubectl("logs", "mixed", "--previous", "--since-time=" + since).ok().out())
        .isEqualTo(dockerLogs("--since", since, previous));
    assertThat(
            kubectl(
                    "logs",
                    "mixed",
                    "--previous",
                    "--tail=4",
                    "--since-time=" + since,
                    "--timestamps")
                .ok()
                .out())
        .isEqualTo(dockerLogs("--tail", "4", "--since", since, "--timestamps", previous));
  }

  /** {@code docker logs ARGS}: its stdout and stderr in the order written, as on a terminal. */
  private static String dockerLogs(String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("docker", "logs"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor()).as("docker logs exit code").isZero();
    return new String(out, StandardCharsets.UTF_8);
  }

  @Test
  void aUserWithoutRbacIsRefusedByTheApiServer() throws Exception {
    Kubectl.Result r = kubectl("--as=nobody", "logs", "printer");
    assertThat(r.code()).isNotZero();
    assertThat(r.err()).contains("forbidden");
  }

  @Test
  void anAnonymousRequestIsRefusedWith401() throws Exception {
    HttpResponse<String> res = direct("/pods", null);
    assertThat(res.statusCode()).isEqualTo(401);
    assertThat(res.body()).isEqualTo("Unauthorized");
  }

  @Test
  void aServiceAccountWithoutRbacIsRefusedWith403() throws Exception {
    String secret =
        await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(
                () ->
                    kubectl("get", "serviceaccount", "default", "-o", "jsonpath={.secrets[0].name}")
                        .ok()
                        .out()
                        .trim(),
                s -> !s.isEmpty());
    String token =
        new String(
            Base64.getDecoder()
                .decode(
                    kubectl("get", "secret", secret, "-o", "jsonpath={.data.token}")
                        .ok()
                        .out()
                        .trim()),
            StandardCharsets.UTF_8);
    HttpResponse<String> res = direct("/pods", token);
    assertThat(res.statusCode()).isEqualTo(403);
    assertThat(res.body())
        .isEqualTo(
            "Forbidden (user=system:serviceaccount:"
                + cluster.ns
                + ":default, verb=get, resource=nodes, subresource=proxy)");
  }

  private static HttpResponse<String> direct(String path, String token) throws Exception {
    SSLContext ctx = io.jkubelet.agent.testing.TrustAll.context();
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
            URI.create("https://127.0.0.1:" + cluster.jkubelet().apiPort() + path));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    try (HttpClient http = HttpClient.newBuilder().sslContext(ctx).build()) {
      return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
