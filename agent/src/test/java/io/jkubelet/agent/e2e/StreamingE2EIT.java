package io.jkubelet.agent.e2e;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.docker.TestDockerClient;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code kubectl exec}, {@code cp}, {@code attach} and {@code port-forward} through the API server
 * to a packaged jkubelet (SPDY, as kubectl v1.20 speaks it), and an exec over a WebSocket (as the
 * conformance suite's client does) with fabric8's client; a client that goes away leaves no exec
 * running behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class StreamingE2EIT {
  private static final Duration WAIT = Duration.ofSeconds(90);

  @RegisterExtension static final ClusterNode cluster = new ClusterNode("stream");

  private final DockerClient docker = TestDocker.client();

  @BeforeAll
  void pods() throws Exception {
    String node = cluster.node;
    Kubectl.apply(
        cluster.ns,
        Kubectl.boundPod(
            "shell",
            node,
            "  - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600']}"));
    Kubectl.apply(
        cluster.ns,
        Kubectl.boundPod(
            "web",
            node,
            "  - name: c\n"
                + "    image: jkubelet/busybox:1.35\n"
                + "    command: [sh, -c, 'mkdir -p /www && echo hello-from-pod > /www/index.html"
                + " && exec httpd -f -p 127.0.0.1:8080 -h /www']\n"
                + "    ports: [{containerPort: 8080}]"));
    for (String pod : List.of("shell", "web")) {
      await()
          .atMost(WAIT)
          .until(
              () ->
                  Kubectl.run(
                          "-n",
                          cluster.ns,
                          "get",
                          "pod",
                          pod,
                          "-o",
                          "jsonpath={.status.containerStatuses[0].ready}")
                      .out()
                      .equals("true"));
    }
  }

  private Kubectl.Result kubectl(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("-n", cluster.ns));
    all.addAll(List.of(args));
    return Kubectl.run(all.toArray(String[]::new));
  }

  @Test
  void execGivesOutputAndTheExitCode() throws Exception {
    Kubectl.Result ok =
        kubectl("exec", "shell", "-c", "c", "--", "sh", "-c", "echo out; echo err >&2");
    assertThat(ok.code()).isZero();
    assertThat(ok.out()).isEqualTo("out\n");
    assertThat(ok.err()).contains("err");

    Kubectl.Result failed = kubectl("exec", "shell", "--", "sh", "-c", "exit 3");
    assertThat(failed.code()).isEqualTo(3);
    assertThat(failed.err()).contains("command terminated with exit code 3");

    Kubectl.Result missing = kubectl("exec", "shell", "-c", "nope", "--", "true");
    assertThat(missing.code()).isNotZero();
  }

  @Test
  void execWithStdinRunsAScriptAndPipesData() throws Exception {
    Kubectl.Result piped =
        Kubectl.runWithInput(
            "line one\nline two\n", "-n", cluster.ns, "exec", "-i", "shell", "--", "cat");
    assertThat(piped.code()).isZero();
    assertThat(piped.out()).isEqualTo("line one\nline two\n");

    Kubectl.Result script =
        Kubectl.runWithInput(
            "x=41\necho answer $((x+1))\nexit 5\n",
            "-n",
            cluster.ns,
            "exec",
            "-i",
            "shell",
            "--",
            "sh");
    assertThat(script.out()).isEqualTo("answer 42\n");
    assertThat(script.code()).isEqualTo(5);
  }

  @Test
  void cpCopiesFilesIntoAndOutOfThePod() throws Exception {
    Path dir = Files.createTempDirectory(cluster.tmp(), "cp");
    byte[] content = new byte[300_000];
    new java.util.Random(7).nextBytes(content);
    Path local = Files.write(dir.resolve("data.bin"), content);

    Kubectl.Result in = kubectl("cp", local.toString(), "shell:/tmp/data.bin", "-c", "c");
    assertThat(in.code()).as(in.err()).isZero();
    assertThat(kubectl("exec", "shell", "--", "wc", "-c", "/tmp/data.bin").out().trim())
        .startsWith("300000");

    Path back = dir.resolve("back.bin");
    Kubectl.Result out = kubectl("cp", "shell:/tmp/data.bin", back.toString(), "-c", "c");
    assertThat(out.code()).as(out.err()).isZero();
    assertThat(Files.readAllBytes(back)).isEqualTo(content);
  }

  @Test
  void attachStreamsTheContainersOutputAndTakesStdin() throws Exception {
    Kubectl.apply(
        cluster.ns,
        Kubectl.boundPod(
                "reader",
                cluster.node,
                "  - {name: c, image: jkubelet/busybox:1.35, stdin: true,"
                    + " command: [sh, -c, 'read line; echo got $line; sleep 2']}")
            .replace("  containers:", "  restartPolicy: Never\n  containers:"));
    await()
        .atMost(WAIT)
        .until(
            () ->
                kubectl("get", "pod", "reader", "-o", "jsonpath={.status.phase}")
                    .out()
                    .equals("Running"));

    // stdin stays open until the container has answered: Docker ends an attach's output when its
    // stdin ends (unless the container has stdinOnce), as under dockershim.
    Process attach =
        new ProcessBuilder(
                Kubectl.env("JKUBELET_TEST_KUBECTL"),
                "--kubeconfig",
                Kubectl.kubeconfig().toString(),
                "-n",
                cluster.ns,
                "attach",
                "-i",
                "reader",
                "-c",
                "c")
            .redirectErrorStream(true)
            .start();
    attach.getOutputStream().write("hello\n".getBytes(UTF_8));
    attach.getOutputStream().flush();
    assertThat(attach.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(new String(attach.getInputStream().readAllBytes(), UTF_8)).contains("got hello");
  }

  @Test
  void portForwardCarriesAnHttpRequestToALoopbackPortInThePod() throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Kubectl.env("JKUBELET_TEST_KUBECTL"),
                "--kubeconfig",
                Kubectl.kubeconfig().toString(),
                "-n",
                cluster.ns,
                "port-forward",
                "pod/web",
                ":8080"));
    Process pf = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      BufferedReader lines = new BufferedReader(new InputStreamReader(pf.getInputStream(), UTF_8));
      Pattern forwarding = Pattern.compile("Forwarding from 127\\.0\\.0\\.1:(\\d+) -> 8080");
      int localPort = -1;
      for (String line; localPort < 0 && (line = lines.readLine()) != null; ) {
        Matcher m = forwarding.matcher(line);
        if (m.find()) {
          localPort = Integer.parseInt(m.group(1));
        }
      }
      assertThat(localPort).isPositive();
      HttpClient http = HttpClient.newHttpClient();
      for (int i = 0; i < 3; i++) {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + localPort + "/"))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("hello-from-pod\n");
      }
    } finally {
      pf.destroy();
      pf.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void execOverAWebSocketAsTheConformanceSuiteDoes() throws Exception {
    Config config = Config.fromKubeconfig(Kubectl.kubeconfig().toFile());
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      try (ExecWatch watch =
          client
              .pods()
              .inNamespace(cluster.ns)
              .withName("shell")
              .inContainer("c")
              .writingOutput(out)
              .writingError(err)
              .exec("sh", "-c", "echo over websocket; exit 7")) {
        assertThat(watch.exitCode().get(60, TimeUnit.SECONDS)).isEqualTo(7);
      }
      assertThat(out.toString(UTF_8)).isEqualTo("over websocket\n");
    }
  }

  @Test
  void aClientThatGoesAwayLeavesNoExecRunning() throws Exception {
    List<String> cmd =
        List.of(
            Kubectl.env("JKUBELET_TEST_KUBECTL"),
            "--kubeconfig",
            Kubectl.kubeconfig().toString(),
            "-n",
            cluster.ns,
            "exec",
            "shell",
            "--",
            "sleep",
            "3600");
    Process exec = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String container = shellContainer();
    await().atMost(WAIT).until(() -> TestDockerClient.execProcesses(docker, container) == 1);

    exec.destroyForcibly();

    await().atMost(WAIT).until(() -> TestDockerClient.execProcesses(docker, container) == 0);
  }

  private String shellContainer() {
    List<Container> cs =
        docker
            .listContainersCmd()
            .withLabelFilter(
                Map.of(
                    Labels.POD_NAME,
                    "shell",
                    Labels.POD_NAMESPACE,
                    cluster.ns,
                    Labels.CONTAINER_NAME,
                    "c"))
            .exec();
    assertThat(cs).hasSize(1);
    return cs.get(0).getId();
  }
}
