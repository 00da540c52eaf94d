package io.jkubelet.agent.streaming;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.jkubelet.agent.TestApiServer;
import io.jkubelet.agent.e2e.TestDockerAccess;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.docker.DockerRuntime;
import io.jkubelet.agent.runtime.docker.TestDockerClient;
import io.jkubelet.agent.server.KubeletServer;
import io.jkubelet.agent.server.ServerOptions;
import io.jkubelet.agent.server.ServingCerts;
import io.jkubelet.agent.server.TlsPolicy;
import io.jkubelet.agent.server.auth.Authenticator;
import io.jkubelet.agent.server.auth.Authorizer;
import io.jkubelet.agent.util.Time;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The streaming endpoints as the real clients reach them: kubectl v1.20 ({@code exec}, {@code cp},
 * {@code attach}, {@code port-forward}, all SPDY) and fabric8's WebSocket exec, through a real
 * kube-apiserver, which proxies to a {@link KubeletServer} as to a kubelet (a Node registered with
 * 127.0.0.1 and the server's port; the API server's kubelet client certificate checked against the
 * cluster CA), over {@link StreamingRoutes} on the real {@link DockerRuntime} and busybox
 * containers. A client that goes away leaves no exec running and no forwarded connection open.
 *
 * <p>Needs {@code JKUBELET_TEST_KUBECONFIG} (an admin kubeconfig from {@code k8s-up.sh}) and {@code
 * JKUBELET_TEST_KUBECTL}; fails without them, as the other API tests do.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class StreamingKubectlApiTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String IMAGE = "jkubelet/busybox:1.35";

  private final String id = UUID.randomUUID().toString().substring(0, 8);
  private final String node = "stream-api-" + id;
  private final String ns = "stream-api-" + id;
  private final List<Pod> pods = new CopyOnWriteArrayList<>();
  private final DockerClient docker = TestDockerAccess.client();
  private DockerRuntime runtime;
  private KubernetesClient admin;
  private String kubeconfig;
  private String kubectl;
  private KubeletServer kubeletServer;
  private Path tmp;

  @BeforeAll
  void start() throws Exception {
    tmp = Files.createTempDirectory("streaming-api");
    kubeconfig = env("JKUBELET_TEST_KUBECONFIG");
    kubectl = env("JKUBELET_TEST_KUBECTL");
    admin =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(new File(kubeconfig)))
            .build();
    runtime =
        DockerRuntime.connect(DockerRuntime.DEFAULT_HOST, Time.system())
            .scopedTo(Map.of(Labels.NODE, node));
    int port = serve();
    admin
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
        .create();
    // The controller manager writes the new Node too: an edit that loses the race (409) is
    // made again on the newer object.
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(
            () -> {
              admin
                  .nodes()
                  .withName(node)
                  .editStatus(
                      n ->
                          new NodeBuilder(n)
                              .editOrNewStatus()
                              .addNewAddress()
                              .withType("InternalIP")
                              .withAddress("127.0.0.1")
                              .endAddress()
                              .withNewDaemonEndpoints()
                              .withNewKubeletEndpoint(port)
                              .endDaemonEndpoints()
                              .endStatus()
                              .build());
              return true;
            });
    admin
        .namespaces()
        .resource(
            new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                .withNewMetadata()
                .withName(ns)
                .endMetadata()
                .build())
        .create();
    await()
        .atMost(WAIT)
        .until(() -> admin.serviceAccounts().inNamespace(ns).withName("default").get() != null);
    run("shell", List.of("sleep", "3600"), false);
    run(
        "web",
        List.of(
            "sh",
            "-c",
            "mkdir -p /www && echo hello-from-pod > /www/index.html"
                + " && exec httpd -f -p 127.0.0.1:8080 -h /www"),
        false);
    run("reader", List.of("sh", "-c", "read line; echo got $line; sleep 1"), true);
  }

  private static String env(String name) {
    String v = System.getenv(name);
    if (v == null || v.isBlank()) {
      fail(
          name
              + " is not set: these tests need a control plane from deploy/scripts/k8s-up.sh"
              + " and kubectl v1.20");
    }
    return v;
  }

  /**
   * The kubelet server ({@link KubeletServer}: TLS, client certificates verified against the
   * cluster CA, no anonymous access) with the streaming routes, which the API server reaches as the
   * node's kubelet with its kubelet client certificate; returns its port.
   */
  private int serve() throws Exception {
    Config config = Config.fromKubeconfig(new File(kubeconfig));
    byte[] caPem =
        config.getCaCertData() != null
            ? Base64.getDecoder().decode(config.getCaCertData())
            : Files.readAllBytes(Path.of(config.getCaCertFile()));
    List<X509Certificate> clusterCa =
        List.of(
            (X509Certificate)
                CertificateFactory.getInstance("X.509")
                    .generateCertificate(new java.io.ByteArrayInputStream(caPem)));
    StreamingRoutes routes =
        new StreamingRoutes(
            new StreamingService(
                new StreamTargets(
                    () -> pods,
                    p -> java.util.Optional.empty(),
                    uid -> java.util.Optional.empty(),
                    runtime)));
    kubeletServer =
        new KubeletServer(
            new ServerOptions(
                "127.0.0.1",
                0,
                ServingCerts.selfSigned(tmp.resolve("pki"), node, List.of(), Clock.systemUTC()),
                clusterCa,
                node,
                null,
                TlsPolicy.DEFAULT),
            new Authenticator(false, java.util.Optional.empty()),
            Authorizer.ALWAYS_ALLOW,
            List.of(routes));
    kubeletServer.start();
    return kubeletServer.port();
  }

  /** An API pod bound to the node, marked Running, with a real sandbox and container "c". */
  private void run(String name, List<String> command, boolean stdin) {
    Pod pod =
        admin
            .pods()
            .inNamespace(ns)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName(node)
                    .addNewContainer()
                    .withName("c")
                    .withImage(IMAGE)
                    .withCommand(command)
                    .withStdin(stdin)
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    PodRef ref = new PodRef(pod.getMetadata().getUid(), name, ns);
    Map<String, String> sandboxLabels =
        Labels.podLabels(ref, Labels.POD_CONTAINER_NAME, Labels.TYPE_SANDBOX);
    sandboxLabels.put(Labels.NODE, node);
    String sandbox =
        runtime.runPodSandbox(
            SandboxConfig.builder(ref, "jkubelet/pause:3.2")
                .attempt(0)
                .hostname(name)
                .hostNetwork(false)
                .ports(List.of())
                .oomScoreAdj(0)
                .labels(sandboxLabels)
                .cpuShares(2)
                .build());
    Map<String, String> labels = Labels.podLabels(ref, "c", Labels.TYPE_CONTAINER);
    labels.put(Labels.NODE, node);
    String c =
        runtime.createContainer(
            sandbox,
            ContainerConfig.builder(Labels.containerName(ref, "c", 0), IMAGE)
                .entrypoint(command)
                .cmd(List.of())
                .env(List.of())
                .workingDir("")
                .mounts(List.of())
                .resources(ContainerConfig.Resources.NONE)
                .labels(labels)
                .stdio(new ContainerConfig.Stdio(false, stdin, false))
                .build());
    runtime.startContainer(c);
    pods.add(pod);
    admin
        .pods()
        .inNamespace(ns)
        .withName(name)
        .editStatus(
            p -> new PodBuilder(p).editOrNewStatus().withPhase("Running").endStatus().build());
  }

  @AfterAll
  void stop() throws Exception {
    if (kubeletServer != null) {
      kubeletServer.stop();
    }
    if (admin != null) {
      admin.namespaces().withName(ns).delete();
      TestApiServer.deleteNode(admin, node);
      admin.close();
    }
    for (Container c :
        docker
            .listContainersCmd()
            .withShowAll(true)
            .withLabelFilter(Map.of(Labels.NODE, node))
            .exec()) {
      docker.removeContainerCmd(c.getId()).withForce(true).exec();
    }
    if (runtime != null) {
      runtime.close();
    }
    if (tmp != null) {
      try (var files = Files.walk(tmp)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  record Result(int code, String out, String err) {}

  private Result kubectl(String stdin, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(kubectl, "--kubeconfig", kubeconfig, "-n", ns));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(tmp, "out", "");
    Path err = Files.createTempFile(tmp, "err", "");
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
    if (stdin == null) {
      pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    }
    Process p = pb.start();
    if (stdin != null) {
      try (var in = p.getOutputStream()) {
        in.write(stdin.getBytes(UTF_8));
      }
    }
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("kubectl " + args[0] + " did not end in 90 s: " + Files.readString(err));
    }
    return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  @Test
  void execGivesOutputAndTheExitCode() throws Exception {
    Result ok =
        kubectl(null, "exec", "shell", "-c", "c", "--", "sh", "-c", "echo out; echo err >&2");
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(ok.out()).isEqualTo("out\n");
    assertThat(ok.err()).isEqualTo("err\n");

    Result failed = kubectl(null, "exec", "shell", "--", "sh", "-c", "exit 3");
    assertThat(failed.code()).isEqualTo(3);
    assertThat(failed.err()).contains("command terminated with exit code 3");
  }

  @Test
  void execWithStdinPipesDataAndRunsAScript() throws Exception {
    Result piped = kubectl("line one\nline two\n", "exec", "-i", "shell", "--", "cat");
    assertThat(piped.code()).as(piped.err()).isZero();
    assertThat(piped.out()).isEqualTo("line one\nline two\n");

    Result script =
        kubectl("x=41\necho answer $((x+1))\nexit 5\n", "exec", "-i", "shell", "--", "sh");
    assertThat(script.out()).isEqualTo("answer 42\n");
    assertThat(script.code()).isEqualTo(5);
  }

  @Test
  void execWithATerminalIsInteractive() throws Exception {
    // script(1) gives kubectl a terminal, as an operator's shell would.
    String kubectlCommand =
        String.join(
            " ",
            kubectl,
            "--kubeconfig",
            kubeconfig,
            "-n",
            ns,
            "exec",
            "-it",
            "shell",
            "--",
            "sh",
            "-c",
            "'read x; echo got $x; exit 4'");
    Process tty =
        new ProcessBuilder("script", "-qec", kubectlCommand, "/dev/null")
            .redirectErrorStream(true)
            .start();
    tty.getOutputStream().write("hello\n".getBytes(UTF_8));
    tty.getOutputStream().flush();
    assertThat(tty.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(tty.getInputStream().readAllBytes(), UTF_8);
    assertThat(out).contains("got hello");
    assertThat(tty.exitValue()).as(out).isEqualTo(4);
  }

  @Test
  void cpCopiesFilesIntoAndOutOfThePod() throws Exception {
    byte[] content = new byte[300_000];
    new java.util.Random(7).nextBytes(content);
    Path local = Files.write(tmp.resolve("data.bin"), content);

    Result in = kubectl(null, "cp", local.toString(), "shell:/tmp/data.bin", "-c", "c");
    assertThat(in.code()).as(in.err()).isZero();
    assertThat(kubectl(null, "exec", "shell", "--", "wc", "-c", "/tmp/data.bin").out().trim())
        .startsWith("300000");

    Path back = tmp.resolve("back.bin");
    Result out = kubectl(null, "cp", "shell:/tmp/data.bin", back.toString(), "-c", "c");
    assertThat(out.code()).as(out.err()).isZero();
    assertThat(Files.readAllBytes(back)).isEqualTo(content);
  }

  @Test
  void attachStreamsTheContainersOutputAndTakesStdin() throws Exception {
    // stdin stays open until the container has answered: Docker ends an attach's output when its
    // stdin ends (unless the container has stdinOnce), as under dockershim.
    Process attach =
        new ProcessBuilder(
                kubectl, "--kubeconfig", kubeconfig, "-n", ns, "attach", "-i", "reader", "-c", "c")
            .redirectErrorStream(true)
            .start();
    attach.getOutputStream().write("hello\n".getBytes(UTF_8));
    attach.getOutputStream().flush();
    assertThat(attach.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(new String(attach.getInputStream().readAllBytes(), UTF_8)).contains("got hello");
  }

  @Test
  void portForwardCarriesHttpToALoopbackPortInThePod() throws Exception {
    Process pf =
        new ProcessBuilder(
                kubectl, "--kubeconfig", kubeconfig, "-n", ns, "port-forward", "pod/web", ":8080")
            .redirectErrorStream(true)
            .start();
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
      // A client connection held open is one connection to the port inside the pod...
      long sandboxPid = sandboxPid("web");
      try (Socket held = new Socket("127.0.0.1", localPort)) {
        await().atMost(WAIT).until(() -> establishedTo(sandboxPid, 8080) == 1);
      }
      // ...which ends with it.
      await().atMost(WAIT).until(() -> establishedTo(sandboxPid, 8080) == 0);
    } finally {
      pf.destroy();
      pf.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private long sandboxPid(String pod) {
    Container sandbox =
        docker
            .listContainersCmd()
            .withLabelFilter(
                Map.of(
                    Labels.NODE,
                    node,
                    Labels.POD_NAME,
                    pod,
                    Labels.DOCKER_TYPE,
                    Labels.TYPE_SANDBOX))
            .exec()
            .getFirst();
    return docker.inspectContainerCmd(sandbox.getId()).exec().getState().getPidLong();
  }

  /**
   * The TCP connections established to {@code port} in the network namespace of process {@code
   * pid}, as its {@code /proc/<pid>/net/tcp} lists them (local address, then state 01).
   */
  private static long establishedTo(long pid, int port) throws java.io.IOException {
    String local = String.format(":%04X", port);
    try (var lines = Files.lines(Path.of("/proc", Long.toString(pid), "net", "tcp"))) {
      return lines
          .skip(1)
          .map(l -> l.trim().split("\\s+"))
          .filter(f -> f.length > 3 && f[1].endsWith(local) && f[3].equals("01"))
          .count();
    }
  }

  @Test
  void execOverAWebSocketAsTheConformanceSuiteDoes() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try (ExecWatch watch =
        admin
            .pods()
            .inNamespace(ns)
            .withName("shell")
            .inContainer("c")
            .writingOutput(out)
            .writingError(err)
            .exec("sh", "-c", "echo over websocket; exit 7")) {
      assertThat(watch.exitCode().get(60, TimeUnit.SECONDS)).isEqualTo(7);
    }
    assertThat(out.toString(UTF_8)).isEqualTo("over websocket\n");
  }

  @Test
  void aClientThatGoesAwayLeavesNoExecRunning() throws Exception {
    Process exec =
        new ProcessBuilder(
                kubectl,
                "--kubeconfig",
                kubeconfig,
                "-n",
                ns,
                "exec",
                "shell",
                "--",
                "sleep",
                "3600")
            .redirectErrorStream(true)
            .start();
    String container = container("shell");
    await().atMost(WAIT).until(() -> TestDockerClient.execProcesses(docker, container) == 1);

    exec.destroyForcibly();

    await().atMost(WAIT).until(() -> TestDockerClient.execProcesses(docker, container) == 0);
  }

  private String container(String pod) {
    List<Container> cs =
        docker
            .listContainersCmd()
            .withLabelFilter(
                Map.of(Labels.NODE, node, Labels.POD_NAME, pod, Labels.CONTAINER_NAME, "c"))
            .exec();
    assertThat(cs).hasSize(1);
    return cs.get(0).getId();
  }
}
