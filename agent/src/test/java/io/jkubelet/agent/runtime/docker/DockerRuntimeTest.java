package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Ports;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerConfig.Mount;
import io.jkubelet.agent.runtime.ContainerConfig.Resources;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.LogEntry;
import io.jkubelet.agent.runtime.LogEntrySink;
import io.jkubelet.agent.runtime.LogRequest;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.PullObserver;
import io.jkubelet.agent.runtime.RegistryAuth;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.SandboxConfig.PortMapping;
import io.jkubelet.agent.runtime.SandboxStatus;
import io.jkubelet.agent.util.Time;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@link DockerRuntime} against the real engine on {@code /var/run/docker.sock} and checks
 * what it did through docker-java directly. Every container made here carries {@code
 * io.jkubelet.test=<this run's id>}, and only those are removed afterwards.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DockerRuntimeTest {

  private static final String BUSYBOX = "jkubelet/busybox:1.35";
  private static final String PAUSE = "jkubelet/pause:3.2";
  private static final String TEST_LABEL = "io.jkubelet.test";
  private static final String RUN_ID = UUID.randomUUID().toString().substring(0, 13);
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static DockerRuntime runtime;
  private static DockerClient docker;

  @BeforeAll
  static void connect() {
    runtime = DockerRuntime.connect(DockerRuntime.DEFAULT_HOST, Time.system());
    docker = TestDockerClient.connect();
  }

  @AfterEach
  void removeThisRunsContainers() {
    TestDockerClient.removeLabelled(docker, TEST_LABEL, RUN_ID);
  }

  @AfterAll
  static void close() throws IOException {
    if (docker != null) {
      new DockerRuntimeTest().removeThisRunsContainers();
      docker.close();
    }
    if (runtime != null) {
      runtime.close();
    }
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void sandboxRunsThePauseImageAndAppContainersJoinItsNetworkAndIpcNamespaces(@TempDir Path out)
      throws Exception {
    PodRef pod = newPod();
    int hostPort = freePort();
    String sandboxId =
        runtime.runPodSandbox(
            sandbox(pod, 1, "web-0", List.of(new PortMapping(8080, hostPort, "", "tcp")), 0));

    InspectContainerResponse s = docker.inspectContainerCmd(sandboxId).exec();
    assertThat(s.getName()).isEqualTo("/k8s_POD_" + pod.name() + "_ns1_" + pod.uid() + "_1");
    assertThat(s.getState().getRunning()).isTrue();
    assertThat(s.getConfig().getImage()).isEqualTo(PAUSE);
    assertThat(s.getConfig().getHostName()).isEqualTo("web-0");
    assertThat(s.getConfig().getLabels())
        .containsEntry(Labels.POD_UID, pod.uid())
        .containsEntry(Labels.POD_NAME, pod.name())
        .containsEntry(Labels.DOCKER_TYPE, Labels.TYPE_SANDBOX)
        .containsEntry(Labels.CONTAINER_NAME, Labels.POD_CONTAINER_NAME);
    assertThat(s.getHostConfig().getIpcMode()).isEqualTo("shareable");
    Ports.Binding[] bound =
        s.getHostConfig().getPortBindings().getBindings().get(ExposedPort.tcp(8080));
    assertThat(bound).extracting(Ports.Binding::getHostPortSpec).containsExactly("" + hostPort);

    String script =
        "readlink /proc/self/ns/net > /out/net; readlink /proc/self/ns/ipc > /out/ipc;"
            + " hostname > /out/hostname; ip -o -4 addr show eth0 > /out/addr";
    String appId =
        runtime.createContainer(
            sandboxId,
            shell(pod, "app", script)
                .mounts(
                    new Mount(out.toString(), "/out", false, ContainerConfig.Propagation.PRIVATE))
                .build());
    runtime.startContainer(appId);
    awaitExited(appId);

    long pausePid = s.getState().getPidLong();
    assertThat(read(out.resolve("net")))
        .isEqualTo(Files.readSymbolicLink(Path.of("/proc/" + pausePid + "/ns/net")).toString());
    assertThat(read(out.resolve("ipc")))
        .isEqualTo(Files.readSymbolicLink(Path.of("/proc/" + pausePid + "/ns/ipc")).toString());
    assertThat(read(out.resolve("hostname"))).isEqualTo("web-0");
    String ip = runtime.podStatus(pod).ip();
    assertThat(ip)
        .isNotEmpty()
        .isEqualTo(s.getNetworkSettings().getNetworks().get("bridge").getIpAddress());
    assertThat(read(out.resolve("addr"))).contains("inet " + ip + "/");

    HostConfig app = docker.inspectContainerCmd(appId).exec().getHostConfig();
    assertThat(app.getNetworkMode()).isEqualTo("container:" + sandboxId);
    assertThat(app.getIpcMode()).isEqualTo("container:" + sandboxId);
    assertThat(docker.inspectContainerCmd(appId).exec().getConfig().getLabels())
        .containsEntry(Labels.SANDBOX_ID, sandboxId)
        .containsEntry(Labels.DOCKER_TYPE, Labels.TYPE_CONTAINER);
  }

  @Test
  void hostNetworkSandboxHasNoPodIp() {
    PodRef pod = newPod();
    SandboxConfig config =
        SandboxConfig.builder(pod, PAUSE)
            .attempt(0)
            .hostname("")
            .hostNetwork(true)
            .ports(List.of())
            .oomScoreAdj(0)
            .labels(labels(pod, Labels.POD_CONTAINER_NAME, true))
            .cpuShares(0)
            .build();
    String sandboxId = runtime.runPodSandbox(config);

    assertThat(docker.inspectContainerCmd(sandboxId).exec().getHostConfig().getNetworkMode())
        .isEqualTo("host");
    SandboxStatus status = runtime.podStatus(pod).latestSandbox().orElseThrow();
    assertThat(status.ready()).isTrue();
    assertThat(status.ip()).isEmpty();
  }

  @Test
  void listContainersReturnsOnlyContainersWithAPodUidLabel() {
    PodRef pod = newPod();
    String sandboxId = runtime.runPodSandbox(sandbox(pod, 0));
    String unlabelled =
        docker
            .createContainerCmd(BUSYBOX)
            .withLabels(Map.of(TEST_LABEL, RUN_ID))
            .withCmd("true")
            .exec()
            .getId();

    List<ContainerSummary> all = runtime.listContainers();

    assertThat(all).extracting(ContainerSummary::id).contains(sandboxId).doesNotContain(unlabelled);
    ContainerSummary sandbox =
        all.stream().filter(c -> c.id().equals(sandboxId)).findFirst().orElseThrow();
    assertThat(sandbox.pod()).isEqualTo(pod);
    assertThat(sandbox.sandbox()).isTrue();
    assertThat(sandbox.containerName()).isEqualTo(Labels.POD_CONTAINER_NAME);
    assertThat(sandbox.state()).isEqualTo(ContainerState.RUNNING);
    assertThat(sandbox.createdAt()).isBefore(Instant.now().plusSeconds(5));
    assertThat(all).allSatisfy(c -> assertThat(c.pod().uid()).isNotEmpty());
  }

  @Test
  void podStatusReportsRunningExitedAndOomKilledContainers() {
    PodRef pod = newPod();
    assertThat(runtime.podStatus(pod)).isEqualTo(PodStatus.empty(pod));
    String sandboxId = runtime.runPodSandbox(sandbox(pod, 2));

    Map<String, String> extra =
        Map.of(Labels.CONTAINER_HASH, "5f3e2a1b", Labels.RESTART_COUNT, "3");
    String ok = start(sandboxId, shell(pod, "ok", "exit 0").labels(extra).build());
    String failed = start(sandboxId, shell(pod, "failed", "exit 3").build());
    String oom =
        start(
            sandboxId,
            // Not at once: containerd's shim registers its OOM watcher only after the task has
            // started, and Docker never learns of an OOM kill in the first milliseconds (it then
            // reports exit 137 with OOMKilled=false, and emits no oom event).
            shell(pod, "oom", "sleep 1; dd if=/dev/zero of=/dev/null bs=64M count=1")
                .resources(new Resources(0, 0, 0, 16L << 20, 0))
                .build());
    String running =
        start(sandboxId, shell(pod, "running", "while true; do sleep 1; done").build());

    PodStatus status =
        await()
            .atMost(WAIT)
            .until(
                () -> runtime.podStatus(pod),
                s -> s.containers().stream().filter(ContainerStatus::exited).count() == 3);

    SandboxStatus sandbox = status.latestSandbox().orElseThrow();
    assertThat(sandbox.id()).isEqualTo(sandboxId);
    assertThat(sandbox.attempt()).isEqualTo(2);
    assertThat(sandbox.ready()).isTrue();
    assertThat(sandbox.ip()).matches("\\d+\\.\\d+\\.\\d+\\.\\d+");
    assertThat(status.containers()).hasSize(4);

    ContainerStatus okStatus = status.latest("ok").orElseThrow();
    assertThat(okStatus.id()).isEqualTo(ok);
    assertThat(okStatus.sandboxId()).isEqualTo(sandboxId);
    assertThat(okStatus.exitCode()).isZero();
    assertThat(okStatus.reason()).isEqualTo("Completed");
    assertThat(okStatus.hash()).isEqualTo("5f3e2a1b");
    assertThat(okStatus.restartCount()).isEqualTo(3);
    assertThat(okStatus.image()).isEqualTo(BUSYBOX);
    assertThat(okStatus.imageRef()).startsWith("docker://sha256:");
    assertThat(okStatus.startedAt()).isNotNull().isAfterOrEqualTo(okStatus.createdAt());
    assertThat(okStatus.finishedAt()).isNotNull().isAfterOrEqualTo(okStatus.startedAt());

    ContainerStatus failedStatus = status.latest("failed").orElseThrow();
    assertThat(failedStatus.id()).isEqualTo(failed);
    assertThat(failedStatus.exitCode()).isEqualTo(3);
    assertThat(failedStatus.reason()).isEqualTo("Error");
    assertThat(failedStatus.restartCount()).isZero();

    ContainerStatus oomStatus = status.latest("oom").orElseThrow();
    assertThat(oomStatus.id()).isEqualTo(oom);
    assertThat(oomStatus.reason()).as(oomStatus.toString()).isEqualTo("OOMKilled");
    assertThat(oomStatus.exitCode()).isEqualTo(137);

    ContainerStatus runningStatus = status.latest("running").orElseThrow();
    assertThat(runningStatus.id()).isEqualTo(running);
    assertThat(runningStatus.state()).isEqualTo(ContainerState.RUNNING);
    assertThat(runningStatus.reason()).isEmpty();
    assertThat(runningStatus.finishedAt()).isNull();
    assertThat(status.anyRunning()).isTrue();
  }

  @Test
  void aContainerThatCannotStartFailsWithStartAndIsReportedAsContainerCannotRun() {
    PodRef pod = newPod();
    String sandboxId = runtime.runPodSandbox(sandbox(pod, 0));
    String id =
        runtime.createContainer(
            sandboxId, app(pod, "broken").entrypoint(List.of("/no/such/binary")).build());

    assertThatThrownBy(() -> runtime.startContainer(id))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.START))
        .hasMessageContaining("/no/such/binary");

    ContainerStatus status = runtime.podStatus(pod).latest("broken").orElseThrow();
    assertThat(status.state()).isEqualTo(ContainerState.EXITED);
    assertThat(status.reason()).isEqualTo("ContainerCannotRun");
    assertThat(status.message()).contains("/no/such/binary");
    assertThat(status.exitCode()).isNotZero();
    assertThat(status.startedAt()).isNull();
    assertThat(status.finishedAt()).isEqualTo(status.createdAt());
  }

  @Test
  void commandArgsEnvWorkingDirAndMountsAreApplied(@TempDir Path out, @TempDir Path ro)
      throws Exception {
    PodRef pod = newPod();
    String sandboxId = runtime.runPodSandbox(sandbox(pod, 0));
    String script =
        "echo \"$GREETING|$SECOND|$(pwd)|$0|$1\" > /out/result;"
            + " if touch /ro/x 2>/dev/null; then echo rw; else echo ro; fi > /out/ro";
    ContainerConfig config =
        app(pod, "cfg")
            .entrypoint(List.of("sh", "-c"))
            .cmd(List.of(script, "first", "second arg"))
            .env(List.of("GREETING=hello world", "SECOND=2"))
            .workingDir("/tmp")
            .mounts(
                new Mount(out.toString(), "/out", false, ContainerConfig.Propagation.PRIVATE),
                new Mount(ro.toString(), "/ro", true, ContainerConfig.Propagation.PRIVATE))
            .build();
    String id = start(sandboxId, config);
    awaitExited(id);

    assertThat(read(out.resolve("result"))).isEqualTo("hello world|2|/tmp|first|second arg");
    assertThat(read(out.resolve("ro"))).isEqualTo("ro");
    assertThat(ro.resolve("x")).doesNotExist();
    assertThat(runtime.podStatus(pod).latest("cfg").orElseThrow().reason()).isEqualTo("Completed");
  }

  @Test
  void anEmptyArgsListWithoutACommandKeepsTheImageEntrypointWithNoArguments() {
    PodRef pod = newPod();
    String sandboxId = runtime.runPodSandbox(sandbox(pod, 0));
    ContainerConfig config =
        ContainerConfig.builder(Labels.containerName(pod, "noargs", 0), PAUSE)
            .entrypoint(null)
            .cmd(List.of())
            .env(List.of())
            .workingDir("")
            .mounts(List.of())
            .resources(Resources.NONE)
            .labels(labels(pod, "noargs", false))
            .stdio(ContainerConfig.Stdio.NONE)
            .build();

    String id = runtime.createContainer(sandboxId, config);

    var inspected = docker.inspectContainerCmd(id).exec();
    assertThat(inspected.getConfig().getEntrypoint()).containsExactly("/pause");
    assertThat(inspected.getConfig().getCmd()).isNullOrEmpty();
  }

  @Test
  void cpuAndMemoryLimitsAppearInTheHostConfig() {
    PodRef pod = newPod();
    String sandboxId = runtime.runPodSandbox(sandbox(pod, 0));

    String id =
        runtime.createContainer(
            sandboxId,
            app(pod, "limited")
                .resources(new Resources(512, 50_000, 100_000, 64L << 20, 0))
                .tty(true)
                .build());

    InspectContainerResponse inspected = docker.inspectContainerCmd(id).exec();
    HostConfig host = inspected.getHostConfig();
    assertThat(host.getCpuQuota()).isEqualTo(50_000L);
    assertThat(host.getCpuPeriod()).isEqualTo(100_000L);
    assertThat(host.getCpuShares()).isEqualTo(512);
    assertThat(host.getMemory()).isEqualTo(64L << 20);
    assertThat(host.getMemorySwap()).isEqualTo(64L << 20);
    assertThat(inspected.getConfig().getTty()).isTrue();
    assertThat(runtime.podStatus(pod).latest("limited").orElseThrow().state())
        .isEqualTo(ContainerState.CREATED);
  }

  /**
   * The CRI's {@code OomScoreAdj} reaches the container's process, read from the host's {@code
   * /proc/<pid>/oom_score_adj}. A negative value (a Guaranteed pod's -997) reaches it too on a host
   * that allows it; on one that refuses it (this VM does, even to root) the container gets 0.
   */
  @Test
  void aContainersOomScoreAdjReachesItsProcessAndANegativeOneIsZeroWhereTheHostRefusesIt()
      throws Exception {
    PodRef pod = newPod();
    String sandboxId = runtime.runPodSandbox(sandbox(pod, 0));
    String burstable =
        start(
            sandboxId,
            shell(pod, "burstable", "sleep 600").resources(new Resources(0, 0, 0, 0, 875)).build());
    assertThat(oomScoreAdj(burstable)).isEqualTo(875);

    String guaranteed =
        start(
            sandboxId,
            shell(pod, "guaranteed", "sleep 600")
                .resources(new Resources(0, 0, 0, 0, -997))
                .build());
    boolean allowed =
        new ProcessBuilder("sh", "-c", "echo -1 > /proc/self/oom_score_adj")
                .redirectErrorStream(true)
                .start()
                .waitFor()
            == 0;
    assertThat(oomScoreAdj(guaranteed)).isEqualTo(allowed ? -997 : 0);
  }

  /** The container's main process's {@code oom_score_adj}, read on the host. */
  private static int oomScoreAdj(String id) throws java.io.IOException {
    long pid = docker.inspectContainerCmd(id).exec().getState().getPidLong();
    return Integer.parseInt(
        Files.readAllLines(Path.of("/proc/" + pid + "/oom_score_adj")).get(0).trim());
  }

  @Test
  void stopGivesTheContainerItsGracePeriodThenKillsIt(@TempDir Path out) {
    PodRef pod = newPod();
    String sandboxId = runtime.runPodSandbox(sandbox(pod, 0));
    Mount mount = new Mount(out.toString(), "/out", false, ContainerConfig.Propagation.PRIVATE);
    String polite =
        start(
            sandboxId,
            shell(
                    pod,
                    "polite",
                    "trap 'exit 0' TERM; touch /out/polite; while true; do sleep 0.1; done")
                .mounts(mount)
                .build());
    String stubborn =
        start(
            sandboxId,
            shell(
                    pod,
                    "stubborn",
                    "trap '' TERM; touch /out/stubborn; while true; do sleep 0.1; done")
                .mounts(mount)
                .build());
    // Wait for the traps: a shell that is PID 1 ignores a SIGTERM it has no handler for.
    await().atMost(WAIT).until(() -> Files.exists(out.resolve("polite")));
    await().atMost(WAIT).until(() -> Files.exists(out.resolve("stubborn")));

    long t0 = System.nanoTime();
    runtime.stopContainer(polite, Duration.ofSeconds(20));
    Duration politeTook = Duration.ofNanos(System.nanoTime() - t0);

    long t1 = System.nanoTime();
    runtime.stopContainer(stubborn, Duration.ofSeconds(2));
    Duration stubbornTook = Duration.ofNanos(System.nanoTime() - t1);

    assertThat(politeTook).isLessThan(Duration.ofSeconds(10));
    assertThat(stubbornTook).isBetween(Duration.ofMillis(1_900), Duration.ofSeconds(15));
    PodStatus status = runtime.podStatus(pod);
    assertThat(status.latest("polite").orElseThrow().exitCode()).isZero();
    assertThat(status.latest("polite").orElseThrow().state()).isEqualTo(ContainerState.EXITED);
    assertThat(status.latest("stubborn").orElseThrow().exitCode()).isEqualTo(137);

    // Stopping what is stopped, or gone, is fine.
    assertThatCode(() -> runtime.stopContainer(polite, Duration.ZERO)).doesNotThrowAnyException();
    runtime.stopPodSandbox(sandboxId, Duration.ofSeconds(1));
    assertThat(runtime.podStatus(pod).latestSandbox().orElseThrow().ready()).isFalse();
    runtime.removePodSandbox(sandboxId);
    assertThatCode(() -> runtime.stopPodSandbox(sandboxId, Duration.ofSeconds(1)))
        .doesNotThrowAnyException();
  }

  @Test
  void aSandboxAskingForANegativeOomScoreAdjStillRuns() {
    PodRef first = newPod();
    PodRef second = newPod();

    String a = runtime.runPodSandbox(sandbox(first, 0, "a", List.of(), -998));
    String b = runtime.runPodSandbox(sandbox(second, 0, "b", List.of(), -998));

    for (String id : List.of(a, b)) {
      InspectContainerResponse inspected = docker.inspectContainerCmd(id).exec();
      assertThat(inspected.getState().getRunning()).isTrue();
      // This host refuses negatives (0 after the fallback); a host that accepts them keeps -998.
      assertThat(inspected.getHostConfig().getOomScoreAdj()).isIn(0, -998);
    }
    // The container that failed to start was removed: one sandbox per pod.
    assertThat(runtime.podStatus(first).sandboxes()).hasSize(1);
    assertThat(runtime.podStatus(second).sandboxes()).hasSize(1);
  }

  @Test
  void aLeftoverContainerWithTheSandboxNameIsReplaced() {
    PodRef pod = newPod();
    SandboxConfig config = sandbox(pod, 0);
    String leftover =
        docker
            .createContainerCmd(PAUSE)
            .withName(config.containerName())
            .withLabels(Map.of(TEST_LABEL, RUN_ID))
            .exec()
            .getId();

    String id = runtime.runPodSandbox(config);

    assertThat(id).isNotEqualTo(leftover);
    assertThat(docker.inspectContainerCmd(id).exec().getState().getRunning()).isTrue();
    assertThatThrownBy(() -> docker.inspectContainerCmd(leftover).exec())
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void createFailuresAreReportedWithTheirKind() {
    PodRef pod = newPod();
    String sandboxId = runtime.runPodSandbox(sandbox(pod, 0));
    ContainerConfig config = app(pod, "twice").build();
    runtime.createContainer(sandboxId, config);

    assertThatThrownBy(() -> runtime.createContainer(sandboxId, config))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.CREATE))
        .hasMessageContaining("already in use");
    String missing = "jkubelet/missing-" + RUN_ID + ":1";
    assertThatThrownBy(
            () -> runtime.createContainer(sandboxId, app(pod, "noimage").image(missing).build()))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.NOT_FOUND))
        .hasMessageContaining("No such image");
  }

  @Test
  void imagesArePresentOrFailToPull() {
    String missing = "jkubelet/missing-" + RUN_ID + ":1";
    assertThat(runtime.imagePresent(BUSYBOX)).isTrue();
    assertThat(runtime.imagePresent(missing)).isFalse();

    assertThatThrownBy(
            () ->
                runtime.pullImage(
                    missing, RegistryAuth.NONE, Duration.ofSeconds(30), PullObserver.NONE))
        .isInstanceOfSatisfying(
            RuntimeError.class,
            e -> {
              assertThat(e.kind()).isEqualTo(RuntimeError.Kind.IMAGE_PULL);
              assertThat(e.getMessage()).isNotBlank();
            });
    assertThat(runtime.imagePresent(missing)).isFalse();
  }

  @Test
  void removingOrStoppingAMissingContainerIsNotAnError() {
    String missing = "0".repeat(64);
    assertThatCode(() -> runtime.removeContainer(missing)).doesNotThrowAnyException();
    assertThatCode(() -> runtime.removePodSandbox(missing)).doesNotThrowAnyException();
    assertThatCode(() -> runtime.stopContainer(missing, Duration.ofSeconds(1)))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> runtime.startContainer(missing))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.NOT_FOUND));
  }

  @Test
  void execReturnsTheExitCodeAndOutputOfASuccessfulCommand() {
    String id = runningContainer();

    ExecResult result = runtime.exec(id, List.of("sh", "-c", "echo hello"), Duration.ofSeconds(30));

    assertThat(result).isEqualTo(new ExecResult(0, "hello\n", false));
    // No timeout: waits without limit.
    assertThat(runtime.exec(id, List.of("echo", "again"), null))
        .isEqualTo(new ExecResult(0, "again\n", false));
    assertThat(runtime.exec(id, List.of("echo", "zero"), Duration.ZERO))
        .isEqualTo(new ExecResult(0, "zero\n", false));
  }

  @Test
  void execReturnsANonZeroExitCodeWithStdoutAndStderr() {
    String id = runningContainer();

    ExecResult result =
        runtime.exec(
            id, List.of("sh", "-c", "echo out; echo oops >&2; exit 3"), Duration.ofSeconds(30));

    assertThat(result.exitCode()).isEqualTo(3);
    assertThat(result.timedOut()).isFalse();
    assertThat(result.output()).contains("out\n").contains("oops\n").hasSize(9);
  }

  @Test
  void execThatOutlivesItsTimeoutIsReportedAsTimedOut() {
    String id = runningContainer();

    long t0 = System.nanoTime();
    ExecResult result = runtime.exec(id, List.of("sleep", "5"), Duration.ofMillis(500));
    Duration took = Duration.ofNanos(System.nanoTime() - t0);

    assertThat(result.timedOut()).isTrue();
    assertThat(result.output()).isEmpty();
    // Generous: the point is that it does not wait for the command (5 s).
    assertThat(took).isLessThan(Duration.ofSeconds(4));
    // The container and the engine are still usable.
    assertThat(runtime.exec(id, List.of("true"), Duration.ofSeconds(30)).exitCode()).isZero();
  }

  @Test
  void execKeepsAtMostTenKibOfOutputButReadsItAll() {
    String id = runningContainer();

    // 200 kB: more than a pipe buffer, so the command would block if the rest were not read.
    ExecResult result =
        runtime.exec(
            id,
            List.of("sh", "-c", "yes 0123456789 | head -c 200000; echo done >&2"),
            Duration.ofSeconds(30));

    assertThat(result.timedOut()).isFalse();
    assertThat(result.exitCode()).isZero();
    assertThat(result.output())
        .hasSize(ExecSync.MAX_OUTPUT_BYTES)
        .startsWith("0123456789\n0123456789\n")
        .doesNotContain("done");
    assertThat(result.output().length()).isLessThanOrEqualTo(10 * 1024);
  }

  @Test
  void execOfACommandThatClosesItsOutputStillWaitsForItsExit() {
    String id = runningContainer();
    // Whether the engine ends the attach stream when the command closes its stdout and stderr or
    // only when it exits (20.10 does the latter), the result is the command's exit.
    List<String> quietThenExit4 =
        List.of("sh", "-c", "echo bye; exec >/dev/null 2>&1; sleep 1; exit 4");

    assertThat(runtime.exec(id, quietThenExit4, Duration.ofSeconds(30)))
        .isEqualTo(new ExecResult(4, "bye\n", false));
    ExecResult cut =
        runtime.exec(
            id, List.of("sh", "-c", "exec >/dev/null 2>&1; sleep 5"), Duration.ofMillis(500));
    assertThat(cut.timedOut()).isTrue();
  }

  @Test
  void execOfAMissingExecutableIsAFailedResult() {
    String id = runningContainer();

    ExecResult result = runtime.exec(id, List.of("/no/such/binary"), Duration.ofSeconds(30));

    assertThat(result.timedOut()).isFalse();
    assertThat(result.exitCode()).isNotZero();
    assertThat(result.output()).isNotBlank();
  }

  @Test
  void execInAMissingContainerIsNotFound() {
    assertThatThrownBy(() -> runtime.exec("0".repeat(64), List.of("true"), Duration.ofSeconds(5)))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.NOT_FOUND));
  }

  @Test
  void execInAStoppedContainerFails() {
    String id = runningContainer();
    runtime.stopContainer(id, Duration.ZERO);

    assertThatThrownBy(() -> runtime.exec(id, List.of("true"), Duration.ofSeconds(5)))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isNotEqualTo(RuntimeError.Kind.NOT_FOUND))
        .hasMessageContaining("is not running");
  }

  @Test
  void anInterruptedExecThrowsAndKeepsTheInterruptFlag() throws Exception {
    String id = runningContainer();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicBoolean stillInterrupted = new AtomicBoolean();
    Thread caller =
        new Thread(
            () -> {
              try {
                runtime.exec(id, List.of("sleep", "30"), Duration.ofSeconds(60));
              } catch (Throwable t) {
                thrown.set(t);
              }
              stillInterrupted.set(Thread.currentThread().isInterrupted());
            });
    caller.start();
    // Interrupt it once it waits for the command, not while it talks to the engine.
    await()
        .atMost(WAIT)
        .until(
            () ->
                Arrays.stream(caller.getStackTrace())
                    .anyMatch(f -> f.getMethodName().equals("awaitCompletion")));
    caller.interrupt();
    caller.join(WAIT);

    assertThat(caller.isAlive()).isFalse();
    assertThat(thrown.get()).isInstanceOf(RuntimeError.class).hasMessageContaining("interrupted");
    assertThat(stillInterrupted).isTrue();
  }

  @Test
  void concurrentExecsKeepTheirOwnOutput() throws Exception {
    String id = runningContainer();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<ExecResult>> results = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        String n = Integer.toString(i);
        results.add(
            pool.submit(
                () ->
                    runtime.exec(
                        id, List.of("sh", "-c", "echo $0; exit $0", n), Duration.ofSeconds(30))));
      }
      for (int i = 0; i < results.size(); i++) {
        assertThat(results.get(i).get(60, TimeUnit.SECONDS))
            .isEqualTo(new ExecResult(i, i + "\n", false));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void engineVersionAndType() {
    assertThat(runtime.type()).isEqualTo("docker");
    assertThat(runtime.version()).matches("\\d+\\.\\d+.*");
  }

  @Test
  void anUnreachableEngineIsUnavailable(@TempDir Path dir) {
    try (DockerRuntime nowhere =
        DockerRuntime.connect("unix://" + dir.resolve("no.sock"), Time.system())) {
      assertThatThrownBy(nowhere::version)
          .isInstanceOfSatisfying(
              RuntimeError.class,
              e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.UNAVAILABLE));
      assertThatThrownBy(nowhere::listContainers)
          .isInstanceOfSatisfying(
              RuntimeError.class,
              e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.UNAVAILABLE));
    }
  }

  // ---------------------------------------------------------------------------------------------

  private static PodRef newPod() {
    String uid = UUID.randomUUID().toString();
    return new PodRef(uid, "pod-" + uid.substring(0, 8), "ns1");
  }

  private static Map<String, String> labels(PodRef pod, String container, boolean sandbox) {
    Map<String, String> labels =
        Labels.podLabels(pod, container, sandbox ? Labels.TYPE_SANDBOX : Labels.TYPE_CONTAINER);
    labels.put(TEST_LABEL, RUN_ID);
    return labels;
  }

  private static SandboxConfig sandbox(PodRef pod, int attempt) {
    return sandbox(pod, attempt, pod.name(), List.of(), 0);
  }

  private static SandboxConfig sandbox(
      PodRef pod, int attempt, String hostname, List<PortMapping> ports, int oomScoreAdj) {
    return SandboxConfig.builder(pod, PAUSE)
        .attempt(attempt)
        .hostname(hostname)
        .hostNetwork(false)
        .ports(ports)
        .oomScoreAdj(oomScoreAdj)
        .labels(labels(pod, Labels.POD_CONTAINER_NAME, true))
        .cpuShares(2)
        .build();
  }

  private static AppBuilder app(PodRef pod, String name) {
    return new AppBuilder(pod, name);
  }

  /** A busybox container running {@code sh -c script}: the image's CMD is just "sh". */
  @Test
  void logsAreReadWithTailTimestampsAndSinceAndEntriesWithTheirStreamAndTime() throws Exception {
    PodRef pod = newPod();
    String sandboxId = runtime.runPodSandbox(sandbox(pod, 0));
    String id =
        start(
            sandboxId,
            shell(pod, "printer", "echo one; echo two >&2; sleep 1; printf three; sleep 1; echo")
                .build());
    String tty = start(sandboxId, shell(pod, "tty", "echo hi").tty(true).build());
    awaitExited(id);
    awaitExited(tty);

    assertThat(logs(id, new LogRequest(false, OptionalLong.empty(), Optional.empty(), false)))
        .contains("one\n", "two\n", "three\n");
    assertThat(logs(id, new LogRequest(false, OptionalLong.of(1), Optional.empty(), false)))
        .isEqualTo("three\n");
    String stamped = logs(id, new LogRequest(false, OptionalLong.of(1), Optional.empty(), true));
    assertThat(stamped).matches("\\d{4}-\\d\\d-\\d\\dT[\\d:]{8}\\.\\d+Z three\n");
    Instant last = Instant.parse(stamped.substring(0, stamped.indexOf(' ')));
    assertThat(logs(id, new LogRequest(false, OptionalLong.empty(), Optional.of(last), false)))
        .as("since is exact to the nanosecond")
        .isEqualTo("three\n");

    List<LogEntry> entries = entries(id, Optional.empty());
    assertThat(entries)
        .extracting(e -> e.stream() + " " + new String(e.content(), StandardCharsets.UTF_8))
        .containsExactlyInAnyOrder("stdout one\n", "stderr two\n", "stdout three\n");
    assertThat(entries(id, Optional.of(last)))
        .extracting(e -> new String(e.content(), StandardCharsets.UTF_8))
        .containsExactly("three\n");
    assertThat(entries(tty, Optional.empty()))
        .extracting(e -> e.stream() + " " + new String(e.content(), StandardCharsets.UTF_8))
        .containsExactly("stdout hi\r\n");
    assertThat(logs(tty, new LogRequest(false, OptionalLong.empty(), Optional.empty(), false)))
        .isEqualTo("hi\r\n");
  }

  private static String logs(String id, LogRequest request) throws Exception {
    return JsonFileLogsDockerTest.read(sink -> runtime.containerLogs(id, request, sink));
  }

  private static List<LogEntry> entries(String id, Optional<Instant> since) throws Exception {
    List<LogEntry> got = new java.util.concurrent.CopyOnWriteArrayList<>();
    var ended = new java.util.concurrent.CompletableFuture<Throwable>();
    try (AutoCloseable s =
        runtime.followLogEntries(
            id,
            since,
            new LogEntrySink() {
              @Override
              public void entry(LogEntry entry) {
                got.add(entry);
              }

              @Override
              public void end(Throwable error) {
                ended.complete(error);
              }
            })) {
      assertThat(ended.get(30, TimeUnit.SECONDS)).isNull();
    }
    return got;
  }

  private static AppBuilder shell(PodRef pod, String name, String script) {
    return app(pod, name).entrypoint(List.of("sh", "-c")).cmd(List.of(script));
  }

  private static String start(String sandboxId, ContainerConfig config) {
    String id = runtime.createContainer(sandboxId, config);
    runtime.startContainer(id);
    return id;
  }

  /** A running busybox container ({@code sleep 3600}) in a sandbox of a new pod. */
  private static String runningContainer() {
    PodRef pod = newPod();
    String sandboxId = runtime.runPodSandbox(sandbox(pod, 0));
    return start(sandboxId, app(pod, "app").build());
  }

  private static void awaitExited(String id) {
    await()
        .atMost(WAIT)
        .until(() -> !docker.inspectContainerCmd(id).exec().getState().getRunning());
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8).trim();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static final class AppBuilder {
    private final PodRef pod;
    private final String name;
    private String image = BUSYBOX;
    private List<String> entrypoint = List.of("sleep");
    private List<String> cmd = List.of("3600");
    private List<String> env = List.of();
    private String workingDir = "";
    private List<Mount> mounts = List.of();
    private Resources resources = Resources.NONE;
    private final Map<String, String> labels;
    private boolean tty;

    AppBuilder(PodRef pod, String name) {
      this.pod = pod;
      this.name = name;
      this.labels = new HashMap<>(DockerRuntimeTest.labels(pod, name, false));
    }

    AppBuilder image(String image) {
      this.image = image;
      return this;
    }

    AppBuilder entrypoint(List<String> entrypoint) {
      this.entrypoint = entrypoint;
      return this;
    }

    AppBuilder cmd(List<String> cmd) {
      this.cmd = cmd;
      return this;
    }

    AppBuilder env(List<String> env) {
      this.env = env;
      return this;
    }

    AppBuilder workingDir(String workingDir) {
      this.workingDir = workingDir;
      return this;
    }

    AppBuilder mounts(Mount... mounts) {
      this.mounts = List.of(mounts);
      return this;
    }

    AppBuilder resources(Resources resources) {
      this.resources = resources;
      return this;
    }

    AppBuilder labels(Map<String, String> extra) {
      this.labels.putAll(extra);
      return this;
    }

    AppBuilder tty(boolean tty) {
      this.tty = tty;
      return this;
    }

    ContainerConfig build() {
      return ContainerConfig.builder(Labels.containerName(pod, name, 0), image)
          .entrypoint(entrypoint)
          .cmd(cmd)
          .env(env)
          .workingDir(workingDir)
          .mounts(mounts)
          .resources(resources)
          .labels(labels)
          .stdio(new ContainerConfig.Stdio(tty, false, false))
          .build();
    }
  }
}
