package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.jkubelet.agent.runtime.Labels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * jkubelet in standalone mode, end to end: the packaged launcher runs as a process against the real
 * Docker Engine, and the tests look at what a user sees: {@code /pods} on the read-only port, and
 * the containers in Docker. One jkubelet serves every test; each test has its own manifests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
class StandaloneE2EIT {
  private final String node = "e2e-" + UUID.randomUUID().toString().substring(0, 8);
  private final DockerClient docker = TestDocker.client();
  private Path tmp;
  private Path manifests;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeAll
  void start() throws Exception {
    tmp = Files.createTempDirectory("jkubelet-e2e");
    manifests = Files.createDirectories(tmp.resolve("manifests"));
    jkubelet =
        new JkubeletProcess(node, manifests, tmp.resolve("root"), tmp.resolve("jkubelet.log"))
            .start();
    jkubelet.awaitHealthy();
  }

  @AfterAll
  void stop() throws Exception {
    if (jkubelet != null) {
      jkubelet.stop();
    }
    TestDocker.removeAll(docker, Labels.NODE, node);
    TestDocker.removeAll(docker, "io.jkubelet.test", node);
  }

  private void manifest(String file, String yaml) throws Exception {
    Path tmpFile = tmp.resolve(file + ".tmp");
    Files.writeString(tmpFile, yaml);
    Files.move(tmpFile, manifests.resolve(file), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  private Pod pod(String name) {
    return jkubelet.pod(name + "-" + node).orElseThrow(() -> new AssertionError("no pod " + name));
  }

  private static ContainerStatus container(Pod p, String name) {
    return p.getStatus().getContainerStatuses().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  private static String condition(Pod p, String type) {
    return p.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .map(PodCondition::getStatus)
        .findFirst()
        .orElse("");
  }

  private List<Container> containersOf(Pod p) {
    return TestDocker.withLabels(docker, Map.of(Labels.POD_UID, p.getMetadata().getUid()));
  }

  private static String dockerId(ContainerStatus s) {
    return s.getContainerID().substring("docker://".length());
  }

  @Test
  void aStaticPodRunsWithInitContainersVolumesAndUpstreamNamesLabelsAndStatus() throws Exception {
    Path hostDir = Files.createDirectories(tmp.resolve("host"));
    int hostPort;
    try (var socket = new java.net.ServerSocket(0)) {
      hostPort = socket.getLocalPort();
    }
    manifest(
        "full.yaml",
        """
        apiVersion: v1
        kind: Pod
        metadata:
          name: full
          labels: {app: full}
        spec:
          terminationGracePeriodSeconds: 2
          initContainers:
          - name: first
            image: jkubelet/busybox:1.35
            command: [sh, -c, 'echo first >> /work/order']
            volumeMounts: [{name: work, mountPath: /work}]
          - name: second
            image: jkubelet/busybox:1.35
            command: [sh, -c, 'echo second >> /work/order']
            volumeMounts: [{name: work, mountPath: /work}]
          containers:
          - name: app
            image: jkubelet/busybox:1.35
            command: [sh, -c]
            args: ['cat /work/order > /out/order; echo "$GREETING $(POD) $(pwd)" > /out/env; exec httpd -f -p 8080 -h /out']
            workingDir: /tmp
            env:
            - {name: GREETING, value: hello}
            - name: POD
              valueFrom: {fieldRef: {fieldPath: metadata.name}}
            ports: [{containerPort: 8080, hostPort: %d}]
            resources:
              limits: {cpu: 250m, memory: 64Mi}
            volumeMounts:
            - {name: work, mountPath: /work}
            - {name: out, mountPath: /out}
          volumes:
          - {name: work, emptyDir: {}}
          - name: out
            hostPath: {path: %s, type: Directory}
        """
            .formatted(hostPort, hostDir));

    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                "Running".equals(pod("full").getStatus().getPhase())
                    && "True".equals(condition(pod("full"), "Ready")));
    Pod p = pod("full");

    // Static pod defaulting, as upstream.
    assertThat(p.getMetadata().getNamespace()).isEqualTo("default");
    assertThat(p.getMetadata().getUid()).matches("[0-9a-f]{32}");
    assertThat(p.getMetadata().getAnnotations())
        .containsEntry("kubernetes.io/config.hash", p.getMetadata().getUid())
        .containsEntry("kubernetes.io/config.source", "file")
        .containsKey("kubernetes.io/config.seen");
    assertThat(p.getSpec().getNodeName()).isEqualTo(node);

    // Status as kubectl and jq users expect it.
    assertThat(p.getStatus().getPodIP()).isNotBlank();
    assertThat(p.getStatus().getHostIP()).isNotBlank();
    assertThat(p.getStatus().getStartTime()).isNotBlank();
    assertThat(p.getStatus().getQosClass()).isEqualTo("Burstable");
    assertThat(p.getStatus().getConditions())
        .extracting(PodCondition::getType)
        .containsExactly("Initialized", "Ready", "ContainersReady", "PodScheduled");
    ContainerStatus app = container(p, "app");
    assertThat(app.getReady()).isTrue();
    assertThat(app.getRestartCount()).isZero();
    assertThat(app.getState().getRunning().getStartedAt()).isNotBlank();
    assertThat(app.getContainerID()).matches("docker://[0-9a-f]{64}");
    assertThat(p.getStatus().getInitContainerStatuses())
        .extracting(s -> s.getName() + "=" + s.getState().getTerminated().getReason())
        .containsExactly("first=Completed", "second=Completed");

    // Init containers ran in order, to completion, before the app; env, args, workingDir applied.
    assertThat(Files.readString(hostDir.resolve("order"))).isEqualTo("first\nsecond\n");
    await().until(() -> Files.exists(hostDir.resolve("env")));
    assertThat(Files.readString(hostDir.resolve("env")))
        .isEqualTo("hello full-" + node + " /tmp\n");
    // The host port reaches the container through the sandbox's network namespace.
    var http = java.net.http.HttpClient.newHttpClient();
    var request =
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + hostPort + "/env"))
            .build();
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(
                        http.send(request, java.net.http.HttpResponse.BodyHandlers.ofString())
                            .body())
                    .isEqualTo("hello full-" + node + " /tmp\n"));

    // Docker names, labels and namespaces, as dockershim writes them.
    String uid = p.getMetadata().getUid();
    InspectContainerResponse appC = docker.inspectContainerCmd(dockerId(app)).exec();
    assertThat(appC.getName()).isEqualTo("/k8s_app_full-" + node + "_default_" + uid + "_0");
    Map<String, String> labels = appC.getConfig().getLabels();
    assertThat(labels)
        .containsEntry(Labels.POD_NAME, "full-" + node)
        .containsEntry(Labels.POD_NAMESPACE, "default")
        .containsEntry(Labels.POD_UID, uid)
        .containsEntry(Labels.CONTAINER_NAME, "app")
        .containsEntry(Labels.DOCKER_TYPE, "container")
        .containsEntry(Labels.RESTART_COUNT, "0")
        .containsKey(Labels.CONTAINER_HASH);
    String sandboxId = labels.get(Labels.SANDBOX_ID);
    InspectContainerResponse sandbox = docker.inspectContainerCmd(sandboxId).exec();
    assertThat(sandbox.getName()).isEqualTo("/k8s_POD_full-" + node + "_default_" + uid + "_0");
    assertThat(sandbox.getConfig().getLabels()).containsEntry(Labels.DOCKER_TYPE, "podsandbox");
    assertThat(sandbox.getConfig().getImage()).isEqualTo("jkubelet/pause:3.2");
    assertThat(appC.getHostConfig().getNetworkMode()).isEqualTo("container:" + sandboxId);
    assertThat(appC.getHostConfig().getIpcMode()).isEqualTo("container:" + sandboxId);
    assertThat(sandbox.getNetworkSettings().getIpAddress()).isEqualTo(p.getStatus().getPodIP());
    // cgroup limits from resources.limits.
    assertThat(appC.getHostConfig().getMemory()).isEqualTo(64L * 1024 * 1024);
    assertThat(appC.getHostConfig().getCpuQuota()).isEqualTo(25_000L);
    assertThat(appC.getHostConfig().getCpuPeriod()).isEqualTo(100_000L);
  }

  @Test
  void aChangedSpecRestartsJustThatContainer() throws Exception {
    String yaml =
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: edit, uid: edit-%s}
        spec:
          terminationGracePeriodSeconds: 2
          containers:
          - {name: stays, image: jkubelet/busybox:1.35, command: [sleep, '3600']}
          - {name: changes, image: jkubelet/busybox:1.35, command: [sleep, '%s']}
        """;
    manifest("edit.yaml", yaml.formatted(node, "3600"));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                container(pod("edit"), "changes").getState().getRunning() != null
                    && container(pod("edit"), "stays").getState().getRunning() != null);
    Pod before = pod("edit");
    String stays = container(before, "stays").getContainerID();
    String changes = container(before, "changes").getContainerID();

    manifest("edit.yaml", yaml.formatted(node, "3601"));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> {
              ContainerStatus c = container(pod("edit"), "changes");
              return !c.getContainerID().equals(changes) && c.getState().getRunning() != null;
            });
    Pod after = pod("edit");
    assertThat(container(after, "stays").getContainerID()).isEqualTo(stays);
    assertThat(container(after, "stays").getRestartCount()).isZero();
    assertThat(container(after, "changes").getRestartCount()).isEqualTo(1);
    assertThat(after.getStatus().getPodIP()).isEqualTo(before.getStatus().getPodIP());
  }

  @Test
  void aCrashingContainerGoesIntoCrashLoopBackOffAndKeepsOneDeadContainer() throws Exception {
    manifest(
        "crash.yaml",
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: crash}
        spec:
          terminationGracePeriodSeconds: 2
          containers:
          - {name: c, image: jkubelet/busybox:1.35, command: [sh, -c, 'exit 3']}
        """);
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              ContainerStatus c = container(pod("crash"), "c");
              assertThat(c.getRestartCount()).isGreaterThanOrEqualTo(2);
              assertThat(c.getState().getWaiting().getReason()).isEqualTo("CrashLoopBackOff");
              assertThat(c.getState().getWaiting().getMessage()).startsWith("back-off ");
              assertThat(c.getLastState().getTerminated().getExitCode()).isEqualTo(3);
              assertThat(c.getLastState().getTerminated().getReason()).isEqualTo("Error");
            });
    Pod p = pod("crash");
    assertThat(condition(p, "Ready")).isEqualTo("False");
    // At most one dead container per container name.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        containersOf(p).stream()
                            .filter(c -> "c".equals(c.getLabels().get(Labels.CONTAINER_NAME))))
                    .hasSize(1));
  }

  @Test
  void aContainerKilledForItsMemoryLimitShowsOomKilled() throws Exception {
    manifest(
        "oom.yaml",
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: oom}
        spec:
          terminationGracePeriodSeconds: 2
          containers:
          - name: hog
            image: jkubelet/busybox:1.35
            command: [sh, -c, 'exec dd if=/dev/zero of=/dev/null bs=64M count=1']
            resources: {limits: {memory: 16Mi}}
        """);
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              ContainerStatus c = container(pod("oom"), "hog");
              assertThat(c.getLastState().getTerminated().getReason()).isEqualTo("OOMKilled");
              assertThat(c.getLastState().getTerminated().getExitCode()).isEqualTo(137);
            });
  }

  @Test
  void restartPoliciesDecideWhatHappensAfterAnExit() throws Exception {
    String yaml =
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s}
        spec:
          restartPolicy: %s
          terminationGracePeriodSeconds: 2
          containers:
          - {name: c, image: jkubelet/busybox:1.35, command: [sh, -c, 'exit %d']}
        """;
    manifest("never.yaml", yaml.formatted("never", "Never", 1));
    manifest("onfailure.yaml", yaml.formatted("onfailure", "OnFailure", 0));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(pod("never").getStatus().getPhase()).isEqualTo("Failed");
              assertThat(pod("onfailure").getStatus().getPhase()).isEqualTo("Succeeded");
            });
    // Neither is restarted, and nothing of them keeps running.
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(container(pod("never"), "c").getRestartCount()).isZero();
              assertThat(container(pod("onfailure"), "c").getRestartCount()).isZero();
              assertThat(
                      containersOf(pod("never")).stream()
                          .filter(c -> "running".equals(c.getState())))
                  .isEmpty();
            });
    assertThat(container(pod("never"), "c").getState().getTerminated().getExitCode()).isEqualTo(1);
  }

  @Test
  void missingImagesFollowThePullPolicy() throws Exception {
    String yaml =
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s}
        spec:
          containers:
          - {name: c, image: 'jkubelet/not-there:1.0', imagePullPolicy: %s}
        """;
    manifest("pull.yaml", yaml.formatted("pull", "IfNotPresent"));
    manifest("never-pull.yaml", yaml.formatted("never-pull", "Never"));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                "ErrImageNeverPull"
                    .equals(container(pod("never-pull"), "c").getState().getWaiting().getReason()));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                "ErrImagePull"
                    .equals(container(pod("pull"), "c").getState().getWaiting().getReason()));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                "ImagePullBackOff"
                    .equals(container(pod("pull"), "c").getState().getWaiting().getReason()));
    assertThat(pod("pull").getStatus().getPhase()).isEqualTo("Pending");
  }

  @Test
  void aBrokenManifestNeverKillsTheRunningPodNorStopsTheOthers() throws Exception {
    String yaml =
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s}
        spec:
          terminationGracePeriodSeconds: 2
          containers:
          - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600']}
        """;
    manifest("steady.yaml", yaml.formatted("steady"));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> container(pod("steady"), "c").getState().getRunning() != null);
    String id = container(pod("steady"), "c").getContainerID();

    manifest("steady.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: steady\nspec: [");
    manifest("garbage.yaml", "this is not a pod");
    manifest("dup.yaml", yaml.formatted("steady"));
    manifest("other.yaml", yaml.formatted("other"));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> container(pod("other"), "c").getState().getRunning() != null);
    // Several rescans later, the running pod is still the same container.
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(container(pod("steady"), "c").getContainerID()).isEqualTo(id);
              assertThat(docker.inspectContainerCmd(id.substring(9)).exec().getState().getRunning())
                  .isTrue();
            });
    assertThat(jkubelet.log())
        .contains("ignoring " + manifests.resolve("steady.yaml"))
        .contains("keeps running from its last valid version")
        .contains("duplicate pod name");
  }

  @Test
  void removingAManifestStopsThePodWithinItsGracePeriodAndRemovesItsContainers() throws Exception {
    manifest(
        "bye.yaml",
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: bye}
        spec:
          terminationGracePeriodSeconds: 3
          containers:
          - {name: polite, image: jkubelet/busybox:1.35, command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.2; done"]}
          - {name: stubborn, image: jkubelet/busybox:1.35, command: [sh, -c, "trap '' TERM; while true; do sleep 0.2; done"]}
        """);
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                container(pod("bye"), "stubborn").getState().getRunning() != null
                    && container(pod("bye"), "polite").getState().getRunning() != null);
    Pod p = pod("bye");
    String uid = p.getMetadata().getUid();
    long start = System.nanoTime();
    Files.delete(manifests.resolve("bye.yaml"));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> TestDocker.withLabels(docker, Map.of(Labels.POD_UID, uid)).isEmpty());
    long seconds = Duration.ofNanos(System.nanoTime() - start).toSeconds();
    // SIGTERM, the 3 s grace for the one that ignores it, then SIGKILL.
    assertThat(seconds).isBetween(3L, 15L);
    assertThat(jkubelet.pod("bye-" + node)).isEmpty();
    assertThat(jkubelet.log()).contains("SyncPod KILL default/bye-" + node);
  }

  @Test
  void containersJkubeletDidNotCreateAreNeverTouched() throws Exception {
    String plain =
        docker
            .createContainerCmd("jkubelet/busybox:1.35")
            .withCmd("sleep", "3600")
            .withLabels(Map.of("io.jkubelet.test", node))
            .exec()
            .getId();
    // Looks like a kubelet's pod container, but not one of this jkubelet's.
    String otherKubelet =
        docker
            .createContainerCmd("jkubelet/busybox:1.35")
            .withCmd("sleep", "3600")
            .withLabels(
                Map.of(
                    "io.jkubelet.test",
                    node,
                    Labels.POD_UID,
                    "someone-elses",
                    Labels.POD_NAME,
                    "x",
                    Labels.POD_NAMESPACE,
                    "y"))
            .exec()
            .getId();
    docker.startContainerCmd(plain).exec();
    docker.startContainerCmd(otherKubelet).exec();
    // Housekeeping runs every 2 s; give it several chances.
    await()
        .during(Duration.ofSeconds(6))
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(docker.inspectContainerCmd(plain).exec().getState().getRunning()).isTrue();
              assertThat(docker.inspectContainerCmd(otherKubelet).exec().getState().getRunning())
                  .isTrue();
            });
  }

  @Test
  void healthzIsOk() throws Exception {
    assertThat(jkubelet.get("/healthz").body()).isEqualTo("ok");
  }

  static String ids(List<Container> cs) {
    return cs.stream().map(Container::getId).sorted().collect(Collectors.joining(","));
  }
}
