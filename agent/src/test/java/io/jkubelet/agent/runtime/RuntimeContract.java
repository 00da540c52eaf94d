package io.jkubelet.agent.runtime;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.jkubelet.agent.runtime.ContainerConfig.Resources;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What the kubelet relies on from a {@link Runtime}, run against every implementation: the fake
 * that the unit tests use ({@code FakeRuntimeContractTest}) and Docker ({@code
 * DockerRuntimeContractTest}), so that the fake cannot drift from the real thing, as upstream's
 * {@code TestFakePodWorkers} does for pod workers.
 *
 * <p>Covered: sandbox and container status mapping (created, running, exited with its code, OOM
 * killed), dockershim's names and {@code io.kubernetes.*} labels, restart count and labels round
 * trips, listing by pod UID, unknown ids, name conflicts, exec results, output cap and timeout,
 * interactive exec (stdin and its end, exit code, close), attach, port-forward to a loopback port,
 * following a container's output to its end, image presence, an image's user, and the event watch
 * that wakes the PLEG.
 *
 * <p>Every container carries {@link Labels#NODE} with {@link #node}, unique to the test instance; a
 * subclass scopes its runtime to it and removes only those containers afterwards.
 */
public abstract class RuntimeContract {
  protected static final String IMAGE = "jkubelet/busybox:1.35";
  protected static final String SANDBOX_IMAGE = "jkubelet/pause:3.2";

  /** The node label of everything this test instance creates. */
  protected final String node = "contract-" + UUID.randomUUID().toString().substring(0, 8);

  /** The runtime under test, scoped to {@link #node}'s containers. */
  protected abstract Runtime runtime();

  /** The main process of the app containers made here: it runs until {@link #exit} ends it. */
  protected abstract List<String> mainProcess();

  /**
   * Makes the running container's main process exit with the code, and returns once the runtime
   * reports the container exited.
   */
  protected abstract void exit(String containerId, int exitCode);

  /**
   * Makes the running container's main process exceed the container's memory limit ({@link
   * #OOM_LIMIT}), and returns once the runtime reports the container exited.
   */
  protected abstract void exceedMemory(String containerId);

  /** The memory limit of the container that {@link #exceedMemory} is used on. */
  protected static final long OOM_LIMIT = 16L << 20;

  /** What an exec'd command does: writes the output, runs a while, exits with the code. */
  protected record Program(String output, Duration runs, int exitCode) {}

  /** The exec command that runs the program in this runtime's containers. */
  protected abstract List<String> command(Program program);

  /**
   * Makes the running container serve {@code GET /} on 127.0.0.1:{@code port} of its pod (only the
   * loopback address) with the body, over HTTP/1.0; returns once it listens.
   */
  protected abstract void serveHttp(String containerId, int port, String body);

  /** How many execs still run in the container (streams included). */
  protected abstract int execsRunning(String containerId);

  // --- sandboxes ---

  @Test
  void aPodWithNothingInTheRuntimeHasAnEmptyStatus() {
    PodRef pod = newPod();
    assertThat(runtime().podStatus(pod)).isEqualTo(PodStatus.empty(pod));
  }

  @Test
  void aPodsStatusFromTheIdsOfAListingIsThatOfTheListedContainers() {
    PodRef pod = newPod();
    String first = runtime().runPodSandbox(sandbox(pod, 0, false));
    List<String> listed =
        runtime().listContainers().stream()
            .filter(c -> c.pod().uid().equals(pod.uid()))
            .map(ContainerSummary::id)
            .toList();
    assertThat(listed).containsExactly(first);
    assertThat(runtime().podStatus(pod, listed)).isEqualTo(runtime().podStatus(pod));

    runtime().stopPodSandbox(first, Duration.ofSeconds(1));
    runtime().runPodSandbox(sandbox(pod, 1, false)); // created after the listing: left out
    assertThat(runtime().podStatus(pod, listed).sandboxes())
        .extracting(SandboxStatus::id)
        .containsExactly(first);
    assertThat(runtime().podStatus(pod, List.of())).isEqualTo(PodStatus.empty(pod));
  }

  @Test
  void aRunningSandboxIsReadyWithAnIpItsAttemptAndDockershimLabels() {
    PodRef pod = newPod();
    String id = runtime().runPodSandbox(sandbox(pod, 2, false));

    SandboxStatus status = runtime().podStatus(pod).latestSandbox().orElseThrow();
    assertThat(status.id()).isEqualTo(id);
    assertThat(status.attempt()).isEqualTo(2);
    assertThat(status.ready()).isTrue();
    assertThat(status.ip()).matches("\\d+\\.\\d+\\.\\d+\\.\\d+");
    assertThat(status.labels())
        .containsEntry(Labels.POD_UID, pod.uid())
        .containsEntry(Labels.POD_NAME, pod.name())
        .containsEntry(Labels.POD_NAMESPACE, pod.namespace())
        .containsEntry(Labels.DOCKER_TYPE, Labels.TYPE_SANDBOX)
        .containsEntry(Labels.CONTAINER_NAME, Labels.POD_CONTAINER_NAME)
        .containsEntry(Labels.NODE, node);
    assertThat(runtime().podStatus(pod).anyRunning()).isTrue();
  }

  @Test
  void aStoppedSandboxIsNotReadyAndHasNoIpAndARemovedOneIsGone() {
    PodRef pod = newPod();
    String id = runtime().runPodSandbox(sandbox(pod, 0, false));

    runtime().stopPodSandbox(id, Duration.ofSeconds(1));
    SandboxStatus stopped = runtime().podStatus(pod).latestSandbox().orElseThrow();
    assertThat(stopped.ready()).isFalse();
    assertThat(stopped.ip()).isEmpty();
    assertThat(runtime().podStatus(pod).anyRunning()).isFalse();

    runtime().removePodSandbox(id);
    assertThat(runtime().podStatus(pod)).isEqualTo(PodStatus.empty(pod));
  }

  @Test
  void aPluginNetworkSandboxHasNoIpOfTheRuntimesAndANetNsOnlyWhileItRuns() {
    PodRef pod = newPod();
    String id = runtime().runPodSandbox(sandbox(pod, 0, false).onPluginNetwork());

    SandboxStatus status = runtime().podStatus(pod).latestSandbox().orElseThrow();
    assertThat(status.ready()).isTrue();
    assertThat(status.ips()).isEmpty();
    assertThat(runtime().sandboxNetNs(id)).matches("/proc/[0-9]+/ns/net");

    runtime().stopPodSandbox(id, Duration.ofSeconds(1));
    assertThat(runtime().sandboxNetNs(id)).isEmpty();
    runtime().removePodSandbox(id);
    assertThat(runtime().sandboxNetNs(id)).isEmpty();
  }

  @Test
  void aHostNetworkSandboxIsReadyWithoutAPodIp() {
    PodRef pod = newPod();
    runtime().runPodSandbox(sandbox(pod, 0, true));

    SandboxStatus status = runtime().podStatus(pod).latestSandbox().orElseThrow();
    assertThat(status.ready()).isTrue();
    assertThat(status.ip()).isEmpty();
  }

  @Test
  void aLeftoverSandboxOfTheSameNameIsReplaced() {
    PodRef pod = newPod();
    String first = runtime().runPodSandbox(sandbox(pod, 0, false));
    runtime().stopPodSandbox(first, Duration.ZERO);

    String second = runtime().runPodSandbox(sandbox(pod, 0, false));

    assertThat(second).isNotEqualTo(first);
    assertThat(runtime().podStatus(pod).sandboxes())
        .singleElement()
        .satisfies(s -> assertThat(s.id()).isEqualTo(second))
        .satisfies(s -> assertThat(s.ready()).isTrue());
  }

  // --- containers ---

  @Test
  void aContainerGoesFromCreatedToRunningToExitedWithItsCode() {
    PodRef pod = newPod();
    String sandboxId = runtime().runPodSandbox(sandbox(pod, 0, false));
    String id = runtime().createContainer(sandboxId, app(pod, "app", 0).build());

    ContainerStatus created = runtime().podStatus(pod).latest("app").orElseThrow();
    assertThat(created.id()).isEqualTo(id);
    assertThat(created.state()).isEqualTo(ContainerState.CREATED);
    assertThat(created.sandboxId()).isEqualTo(sandboxId);
    assertThat(created.exitCode()).isZero();
    assertThat(created.reason()).isEmpty();
    assertThat(created.startedAt()).isNull();
    assertThat(created.finishedAt()).isNull();

    runtime().startContainer(id);
    ContainerStatus running = runtime().podStatus(pod).latest("app").orElseThrow();
    assertThat(running.state()).isEqualTo(ContainerState.RUNNING);
    assertThat(running.reason()).isEmpty();
    assertThat(running.startedAt()).isNotNull().isAfterOrEqualTo(running.createdAt());
    assertThat(running.finishedAt()).isNull();

    exit(id, 3);
    ContainerStatus exited = runtime().podStatus(pod).latest("app").orElseThrow();
    assertThat(exited.state()).isEqualTo(ContainerState.EXITED);
    assertThat(exited.exitCode()).isEqualTo(3);
    assertThat(exited.reason()).isEqualTo("Error");
    assertThat(exited.finishedAt()).isNotNull().isAfterOrEqualTo(exited.startedAt());
  }

  @Test
  void anExitWithZeroIsCompleted() {
    PodRef pod = newPod();
    String sandboxId = runtime().runPodSandbox(sandbox(pod, 0, false));
    String id = start(sandboxId, app(pod, "app", 0).build());

    exit(id, 0);

    ContainerStatus status = runtime().podStatus(pod).latest("app").orElseThrow();
    assertThat(status.state()).isEqualTo(ContainerState.EXITED);
    assertThat(status.exitCode()).isZero();
    assertThat(status.reason()).isEqualTo("Completed");
  }

  @Test
  void aContainerKilledForItsMemoryIsOomKilled() {
    PodRef pod = newPod();
    String sandboxId = runtime().runPodSandbox(sandbox(pod, 0, false));
    String id =
        start(
            sandboxId, app(pod, "hog", 0).resources(new Resources(0, 0, 0, OOM_LIMIT, 0)).build());

    exceedMemory(id);

    ContainerStatus status = runtime().podStatus(pod).latest("hog").orElseThrow();
    assertThat(status.state()).isEqualTo(ContainerState.EXITED);
    assertThat(status.reason()).as(status.toString()).isEqualTo("OOMKilled");
    assertThat(status.exitCode()).isEqualTo(137);
  }

  @Test
  void nameRestartCountHashImageAndLabelsRoundTrip() {
    PodRef pod = newPod();
    String sandboxId = runtime().runPodSandbox(sandbox(pod, 0, false));
    Map<String, String> extra =
        Map.of(
            Labels.CONTAINER_HASH,
            "5f3e2a1b",
            Labels.RESTART_COUNT,
            "3",
            "io.jkubelet.contract/extra",
            "yes");
    String id = start(sandboxId, app(pod, "app", 3).labels(extra).build());

    ContainerStatus status = runtime().podStatus(pod).latest("app").orElseThrow();
    assertThat(status.id()).isEqualTo(id);
    assertThat(status.name()).isEqualTo("app");
    assertThat(status.restartCount()).isEqualTo(3);
    assertThat(status.hash()).isEqualTo("5f3e2a1b");
    assertThat(status.image()).isEqualTo(IMAGE);
    assertThat(status.imageRef()).matches("docker(-pullable)?://.+");
    assertThat(status.labels())
        .containsAllEntriesOf(extra)
        .containsEntry(Labels.POD_UID, pod.uid())
        .containsEntry(Labels.CONTAINER_NAME, "app")
        .containsEntry(Labels.SANDBOX_ID, sandboxId)
        .containsEntry(Labels.DOCKER_TYPE, Labels.TYPE_CONTAINER);
  }

  @Test
  void listingFindsEveryContainerByItsPodAndPodStatusAndThePodsListingOnlyThatPods() {
    PodRef a = newPod();
    PodRef b = newPod();
    String sandboxA = runtime().runPodSandbox(sandbox(a, 0, false));
    String appA = start(sandboxA, app(a, "app", 0).build());
    String sandboxB = runtime().runPodSandbox(sandbox(b, 0, false));
    String appB = runtime().createContainer(sandboxB, app(b, "web", 0).build());

    List<ContainerSummary> all = runtime().listContainers();

    assertThat(all)
        .extracting(ContainerSummary::id)
        .containsExactlyInAnyOrder(sandboxA, appA, sandboxB, appB);
    ContainerSummary pause = summary(all, sandboxA);
    assertThat(pause.pod()).isEqualTo(a);
    assertThat(pause.containerName()).isEqualTo(Labels.POD_CONTAINER_NAME);
    assertThat(pause.sandbox()).isTrue();
    assertThat(pause.state()).isEqualTo(ContainerState.RUNNING);
    assertThat(summary(all, appA).state()).isEqualTo(ContainerState.RUNNING);
    ContainerSummary web = summary(all, appB);
    assertThat(web.pod()).isEqualTo(b);
    assertThat(web.containerName()).isEqualTo("web");
    assertThat(web.sandbox()).isFalse();
    assertThat(web.state()).isEqualTo(ContainerState.CREATED);

    PodStatus status = runtime().podStatus(a);
    assertThat(status.sandboxes()).extracting(SandboxStatus::id).containsExactly(sandboxA);
    assertThat(status.containers()).extracting(ContainerStatus::id).containsExactly(appA);
    assertThat(runtime().listContainers(b))
        .containsExactlyInAnyOrder(summary(all, sandboxB), summary(all, appB));
    assertThat(runtime().listContainers(newPod())).isEmpty();
  }

  @Test
  void startingARunningContainerChangesNothing() {
    PodRef pod = newPod();
    String sandboxId = runtime().runPodSandbox(sandbox(pod, 0, false));
    String id = start(sandboxId, app(pod, "app", 0).build());
    ContainerStatus before = runtime().podStatus(pod).latest("app").orElseThrow();

    runtime().startContainer(id);

    ContainerStatus after = runtime().podStatus(pod).latest("app").orElseThrow();
    assertThat(after.state()).isEqualTo(ContainerState.RUNNING);
    assertThat(after.startedAt()).isEqualTo(before.startedAt());
  }

  @Test
  void theEventWatchIsToldWhenASandboxOrContainerStartsDiesAndGoesAway() throws Exception {
    AtomicInteger changes = new AtomicInteger();
    try (AutoCloseable watch = runtime().watchContainerEvents(changes::incrementAndGet)) {
      PodRef pod = newPod();
      String sandboxId = runtime().runPodSandbox(sandbox(pod, 0, false));
      awaitChanges(changes, 1);
      String id = runtime().createContainer(sandboxId, app(pod, "app", 0).build());
      runtime().startContainer(id);
      awaitChanges(changes, 2);
      runtime().stopContainer(id, Duration.ofSeconds(1));
      awaitChanges(changes, 3);
      runtime().removeContainer(id);
      awaitChanges(changes, 4);
    }
  }

  /**
   * Until the watch was told at least {@code n} times: an engine's stream reports a while after.
   */
  private static void awaitChanges(AtomicInteger changes, int n) {
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(changes.get()).isGreaterThanOrEqualTo(n));
  }

  // --- errors ---

  @Test
  void unknownIdsAreNotFoundWhereTheKubeletAsksAndFineWhereItCleansUp() {
    String missing = "0".repeat(64);
    assertThatThrownBy(() -> runtime().startContainer(missing))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.NOT_FOUND));
    assertThatThrownBy(() -> runtime().exec(missing, List.of("true"), Duration.ofSeconds(5)))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.NOT_FOUND));
    assertThatCode(() -> runtime().stopContainer(missing, Duration.ofSeconds(1)))
        .doesNotThrowAnyException();
    assertThatCode(() -> runtime().removeContainer(missing)).doesNotThrowAnyException();
    assertThatCode(() -> runtime().stopPodSandbox(missing, Duration.ofSeconds(1)))
        .doesNotThrowAnyException();
    assertThatCode(() -> runtime().removePodSandbox(missing)).doesNotThrowAnyException();
  }

  @Test
  void followingOutputEndsWhenTheContainerExitsAndAnUnknownIdIsNotFound() throws Exception {
    PodRef pod = newPod();
    String sandboxId = runtime().runPodSandbox(sandbox(pod, 0, false));
    String id = runtime().createContainer(sandboxId, app(pod, "app", 0).build());
    runtime().startContainer(id);
    var ended = new java.util.concurrent.CompletableFuture<Throwable>();
    LogEntrySink sink =
        new LogEntrySink() {
          @Override
          public void entry(LogEntry entry) {
            assertThat(entry.stream()).isIn(LogEntry.STDOUT, LogEntry.STDERR);
          }

          @Override
          public void end(Throwable error) {
            ended.complete(error);
          }
        };
    try (AutoCloseable stream = runtime().followLogEntries(id, java.util.Optional.empty(), sink)) {
      assertThat(ended).as("a running container's output is followed").isNotDone();
      exit(id, 0);
      assertThat(ended.get(30, java.util.concurrent.TimeUnit.SECONDS)).isNull();
    }
    var again = new java.util.concurrent.CompletableFuture<Throwable>();
    try (AutoCloseable stream =
        runtime()
            .followLogEntries(
                id,
                java.util.Optional.empty(),
                new LogEntrySink() {
                  @Override
                  public void entry(LogEntry entry) {}

                  @Override
                  public void end(Throwable error) {
                    again.complete(error);
                  }
                })) {
      assertThat(again.get(30, java.util.concurrent.TimeUnit.SECONDS))
          .as("an exited container's output ends after what it wrote")
          .isNull();
    }
    assertThatThrownBy(
            () -> runtime().followLogEntries("0".repeat(64), java.util.Optional.empty(), sink))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.NOT_FOUND));
  }

  @Test
  void aDuplicateContainerNameIsACreateConflict() {
    PodRef pod = newPod();
    String sandboxId = runtime().runPodSandbox(sandbox(pod, 0, false));
    ContainerConfig config = app(pod, "twice", 0).build();
    runtime().createContainer(sandboxId, config);

    assertThatThrownBy(() -> runtime().createContainer(sandboxId, config))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.CREATE))
        .hasMessageContaining("already in use");
    assertThat(runtime().podStatus(pod).containers()).hasSize(1);
  }

  @Test
  void aContainerOfAMissingImageIsNotFound() {
    PodRef pod = newPod();
    String sandboxId = runtime().runPodSandbox(sandbox(pod, 0, false));

    assertThatThrownBy(
            () ->
                runtime()
                    .createContainer(sandboxId, app(pod, "app", 0).image(missingImage()).build()))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.NOT_FOUND))
        .hasMessageContaining("No such image");
  }

  // --- exec ---

  @Test
  void execGivesTheCommandsExitCodeAndOutput() {
    String id = runningContainer();

    assertThat(runtime().exec(id, command(program("hello\n", 0)), Duration.ofSeconds(30)))
        .isEqualTo(new ExecResult(0, "hello\n", false));
    assertThat(runtime().exec(id, command(program("oops\n", 3)), Duration.ofSeconds(30)))
        .isEqualTo(new ExecResult(3, "oops\n", false));
    // No timeout, or a zero one: waits without limit.
    assertThat(runtime().exec(id, command(program("again\n", 0)), null))
        .isEqualTo(new ExecResult(0, "again\n", false));
    assertThat(runtime().exec(id, command(program("zero\n", 0)), Duration.ZERO))
        .isEqualTo(new ExecResult(0, "zero\n", false));
  }

  @Test
  void execKeepsAtMostTenKibOfOutput() {
    String id = runningContainer();
    String big = "0123456789".repeat(10_000);

    ExecResult result = runtime().exec(id, command(program(big, 0)), Duration.ofSeconds(30));

    assertThat(result.timedOut()).isFalse();
    assertThat(result.exitCode()).isZero();
    assertThat(result.output()).isEqualTo(big.substring(0, 10 * 1024));
  }

  @Test
  void execThatOutlivesItsTimeoutTimesOut() {
    String id = runningContainer();

    ExecResult result =
        runtime()
            .exec(
                id,
                command(new Program("started\n", Duration.ofSeconds(5), 0)),
                Duration.ofMillis(500));

    assertThat(result.timedOut()).isTrue();
    // The container still runs commands.
    assertThat(runtime().exec(id, command(program("", 0)), Duration.ofSeconds(30)).exitCode())
        .isZero();
  }

  @Test
  void execInAnExitedContainerFailsButIsNotNotFound() {
    PodRef pod = newPod();
    String sandboxId = runtime().runPodSandbox(sandbox(pod, 0, false));
    String id = start(sandboxId, app(pod, "app", 0).build());
    exit(id, 0);

    assertThatThrownBy(() -> runtime().exec(id, command(program("", 0)), Duration.ofSeconds(5)))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isNotEqualTo(RuntimeError.Kind.NOT_FOUND))
        .hasMessageContaining("is not running");
  }

  // --- streams ---

  @Test
  void execStreamFeedsStdinUntilItsEndAndGivesOutputAndExitCode() throws Exception {
    String id = runningContainer();
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    StreamHandle cat =
        runtime()
            .execStream(
                id,
                List.of("cat"),
                new StreamIo(
                    new ByteArrayInputStream("line one\nline two\n".getBytes(UTF_8)),
                    out,
                    new ByteArrayOutputStream(),
                    false));

    assertThat(cat.await()).isZero();
    assertThat(out.toString(UTF_8)).isEqualTo("line one\nline two\n");

    ByteArrayOutputStream out2 = new ByteArrayOutputStream();
    StreamHandle failing =
        runtime()
            .execStream(id, command(program("oops\n", 3)), new StreamIo(null, out2, out2, false));
    assertThat(failing.await()).isEqualTo(3);
    assertThat(out2.toString(UTF_8)).isEqualTo("oops\n");
  }

  /** An exec of a minute that says "started" first. */
  private StreamHandle aMinutesExec(String id, StreamIo io) {
    return runtime()
        .execStream(id, command(new Program("started\n", Duration.ofSeconds(60), 0)), io);
  }

  /** No exec runs in the container, and none for 3 s more (one may start late). */
  private void noExecRunsFromNowOn(String id) {
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(20))
        .until(() -> execsRunning(id) == 0);
  }

  @Test
  void closingARunningExecStreamEndsItAndLeavesNoExecRunning() throws Exception {
    String id = runningContainer();
    StreamHandle exec =
        aMinutesExec(
            id,
            new StreamIo(
                new java.io.PipedInputStream(new java.io.PipedOutputStream()),
                new ByteArrayOutputStream(),
                null,
                false));
    await().atMost(Duration.ofSeconds(20)).until(() -> execsRunning(id) == 1);

    exec.close();

    assertThat(exec.await()).isEqualTo(StreamHandle.NO_EXIT_CODE);
    noExecRunsFromNowOn(id);
  }

  @Test
  void closingAnExecStreamAtOnceLeavesNoExecRunning() throws Exception {
    String id = runningContainer();
    StreamHandle exec =
        aMinutesExec(id, new StreamIo(null, new ByteArrayOutputStream(), null, false));

    exec.close();

    // The exec may start after the close, and its output meets a closed stream.
    assertThat(exec.await()).isEqualTo(StreamHandle.NO_EXIT_CODE);
    noExecRunsFromNowOn(id);
  }

  @Test
  void anExecWhoseClientCannotTakeItsOutputIsEndedAndLeavesNoExecRunning() throws Exception {
    String id = runningContainer();
    java.io.OutputStream gone =
        new java.io.OutputStream() {
          @Override
          public void write(int b) throws java.io.IOException {
            throw new java.io.IOException("broken pipe");
          }
        };

    StreamHandle exec = aMinutesExec(id, new StreamIo(null, gone, null, false));

    assertThat(exec.await()).isEqualTo(StreamHandle.NO_EXIT_CODE);
    noExecRunsFromNowOn(id);
  }

  @Test
  void execStreamInAMissingContainerIsNotFound() {
    String missing = "0".repeat(64);
    assertThatThrownBy(
            () ->
                runtime()
                    .execStream(
                        missing,
                        List.of("true"),
                        new StreamIo(null, new ByteArrayOutputStream(), null, false)))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.NOT_FOUND));
  }

  @Test
  void attachEndsWhenTheContainerExits() throws Exception {
    String id = runningContainer();
    StreamHandle attached =
        runtime().attach(id, new StreamIo(null, new ByteArrayOutputStream(), null, false));

    exit(id, 0);

    assertThat(attached.await()).isEqualTo(StreamHandle.NO_EXIT_CODE);
  }

  @Test
  void portForwardReachesAPortBoundToLoopbackInThePod() throws Exception {
    PodRef pod = newPod();
    String sandboxId = runtime().runPodSandbox(sandbox(pod, 0, false));
    String id = start(sandboxId, app(pod, "app", 0).build());
    serveHttp(id, 7070, "hello from the pod");
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    StreamHandle forward =
        runtime()
            .portForward(
                sandboxId,
                7070,
                new ByteArrayInputStream("GET / HTTP/1.0\r\n\r\n".getBytes(UTF_8)),
                out);

    assertThat(forward.await()).isEqualTo(StreamHandle.NO_EXIT_CODE);
    assertThat(out.toString(UTF_8)).startsWith("HTTP/1.").endsWith("hello from the pod");
  }

  @Test
  void portForwardToAPortNobodyListensOnFailsWithTheReason() {
    PodRef pod = newPod();
    String sandboxId = runtime().runPodSandbox(sandbox(pod, 0, false));

    StreamHandle forward =
        runtime()
            .portForward(
                sandboxId,
                7071,
                new ByteArrayInputStream(new byte[0]),
                new ByteArrayOutputStream());

    assertThatThrownBy(forward::await)
        .isInstanceOf(RuntimeError.class)
        .hasMessageContaining("127.0.0.1:7071")
        .hasMessageContaining("refused");
  }

  // --- images ---

  @Test
  void theImagesListedAreTheOnesPresentWithTheirNamesAndSizes() {
    List<ImageSummary> images = runtime().listImages();
    assertThat(images).flatExtracting(ImageSummary::names).contains(IMAGE, SANDBOX_IMAGE);
    assertThat(images).allSatisfy(i -> assertThat(i.sizeBytes()).isPositive());
    assertThat(images).flatExtracting(ImageSummary::names).noneMatch(n -> n.startsWith("<none>"));
  }

  @Test
  void imagesArePresentOrAbsentAndAMissingOneFailsToPull() {
    assertThat(runtime().imagePresent(IMAGE)).isTrue();
    assertThat(runtime().imagePresent(SANDBOX_IMAGE)).isTrue();
    String missing = missingImage();
    assertThat(runtime().imagePresent(missing)).isFalse();
    assertThatThrownBy(
            () ->
                runtime()
                    .pullImage(
                        missing, RegistryAuth.NONE, Duration.ofSeconds(30), PullObserver.NONE))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.IMAGE_PULL));
    RegistryAuth auth = RegistryAuth.basic("someone", "not-a-real-password");
    assertThatThrownBy(
            () -> runtime().pullImage(missing, auth, Duration.ofSeconds(30), PullObserver.NONE))
        .isInstanceOfSatisfying(
            RuntimeError.class,
            e -> {
              assertThat(e.kind()).isEqualTo(RuntimeError.Kind.IMAGE_PULL);
              assertThat(e.getMessage()).doesNotContain("not-a-real-password");
            });
    assertThat(runtime().imagePresent(missing)).isFalse();
  }

  @Test
  void anImageWithoutAUserHasNoneAndAMissingImageIsNotFound() {
    assertThat(runtime().imageUser(IMAGE)).isEmpty();
    assertThatThrownBy(() -> runtime().imageUser(missingImage()))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.NOT_FOUND));
  }

  // ---------------------------------------------------------------------------------------------

  private static ContainerSummary summary(List<ContainerSummary> all, String id) {
    return all.stream().filter(c -> c.id().equals(id)).findFirst().orElseThrow();
  }

  private static Program program(String output, int exitCode) {
    return new Program(output, Duration.ZERO, exitCode);
  }

  private String missingImage() {
    return "jkubelet/missing-" + node + ":1";
  }

  protected PodRef newPod() {
    String uid = UUID.randomUUID().toString();
    return new PodRef(uid, "pod-" + uid.substring(0, 8), "contract");
  }

  private Map<String, String> labels(PodRef pod, String container, String type) {
    Map<String, String> labels = Labels.podLabels(pod, container, type);
    labels.put(Labels.NODE, node);
    return labels;
  }

  protected SandboxConfig sandbox(PodRef pod, int attempt, boolean hostNetwork) {
    return SandboxConfig.builder(pod, SANDBOX_IMAGE)
        .attempt(attempt)
        .hostname(hostNetwork ? "" : pod.name())
        .hostNetwork(hostNetwork)
        .ports(List.of())
        .oomScoreAdj(0)
        .labels(labels(pod, Labels.POD_CONTAINER_NAME, Labels.TYPE_SANDBOX))
        .cpuShares(2)
        .build();
  }

  private String start(String sandboxId, ContainerConfig config) {
    String id = runtime().createContainer(sandboxId, config);
    runtime().startContainer(id);
    return id;
  }

  /** A running app container in the sandbox of a new pod. */
  protected String runningContainer() {
    PodRef pod = newPod();
    String sandboxId = runtime().runPodSandbox(sandbox(pod, 0, false));
    return start(sandboxId, app(pod, "app", 0).build());
  }

  private AppBuilder app(PodRef pod, String name, int restartCount) {
    return new AppBuilder(pod, name, restartCount);
  }

  /** An app container running {@link #mainProcess}, with the pod's labels. */
  private final class AppBuilder {
    private final PodRef pod;
    private final String name;
    private final int restartCount;
    private final Map<String, String> labels;
    private String image = IMAGE;
    private Resources resources = Resources.NONE;

    AppBuilder(PodRef pod, String name, int restartCount) {
      this.pod = pod;
      this.name = name;
      this.restartCount = restartCount;
      this.labels = new HashMap<>(RuntimeContract.this.labels(pod, name, Labels.TYPE_CONTAINER));
    }

    AppBuilder image(String image) {
      this.image = image;
      return this;
    }

    AppBuilder resources(Resources resources) {
      this.resources = resources;
      return this;
    }

    AppBuilder labels(Map<String, String> extra) {
      labels.putAll(extra);
      return this;
    }

    ContainerConfig build() {
      List<String> main = mainProcess();
      return ContainerConfig.builder(Labels.containerName(pod, name, restartCount), image)
          .entrypoint(main.subList(0, 1))
          .cmd(main.subList(1, main.size()))
          .env(List.of())
          .workingDir("")
          .mounts(List.of())
          .resources(resources)
          .labels(labels)
          .stdio(ContainerConfig.Stdio.NONE)
          .build();
    }
  }
}
