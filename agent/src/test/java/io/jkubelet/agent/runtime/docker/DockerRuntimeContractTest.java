package io.jkubelet.agent.runtime.docker;

import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import io.jkubelet.agent.e2e.TestDockerAccess;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeContract;
import io.jkubelet.agent.util.Time;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RuntimeContract} on the real engine at {@link DockerRuntime#DEFAULT_HOST}. The app
 * containers' main process waits for a file, {@code /tmp/exit}, and exits with the code written
 * there (or exceeds its memory for "oom"); every container carries this test's node label and only
 * those are removed afterwards.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DockerRuntimeContractTest extends RuntimeContract {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String MAIN =
      "until [ -f /tmp/exit ]; do sleep 0.1; done; code=$(cat /tmp/exit);"
          + " if [ \"$code\" = oom ]; then exec dd if=/dev/zero of=/dev/null bs=64M count=1; fi;"
          + " exit $code";

  private final DockerRuntime runtime =
      DockerRuntime.connect(DockerRuntime.DEFAULT_HOST, Time.system())
          .scopedTo(Map.of(Labels.NODE, node));
  private final DockerClient docker = TestDockerAccess.client();

  @AfterEach
  void removeThisTestsContainers() throws IOException {
    try {
      for (Container c :
          docker
              .listContainersCmd()
              .withShowAll(true)
              .withLabelFilter(Map.of(Labels.NODE, node))
              .exec()) {
        try {
          docker.removeContainerCmd(c.getId()).withForce(true).withRemoveVolumes(true).exec();
        } catch (RuntimeException e) {
          // already gone
        }
      }
    } finally {
      runtime.close();
      docker.close();
    }
  }

  @Override
  protected Runtime runtime() {
    return runtime;
  }

  @Override
  protected List<String> mainProcess() {
    return List.of("sh", "-c", MAIN);
  }

  @Override
  protected void exit(String containerId, int exitCode) {
    trigger(containerId, Integer.toString(exitCode));
  }

  @Override
  protected void exceedMemory(String containerId) {
    trigger(containerId, "oom");
  }

  /** Writes {@code /tmp/exit} at once (a rename) and waits until the container has exited. */
  private void trigger(String containerId, String value) {
    ExecResult written =
        runtime.exec(
            containerId,
            List.of("sh", "-c", "echo $0 > /tmp/exit.new && mv /tmp/exit.new /tmp/exit", value),
            WAIT);
    if (written.exitCode() != 0) {
      throw new AssertionError("could not write /tmp/exit: " + written);
    }
    await()
        .atMost(WAIT)
        .until(() -> !docker.inspectContainerCmd(containerId).exec().getState().getRunning());
  }

  // --- Docker's own stream framing ---

  @org.junit.jupiter.api.Test
  void execStreamSplitsDockersMultiplexedStdoutAndStderr() throws Exception {
    String id = runningContainer();
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();

    io.jkubelet.agent.runtime.StreamHandle h =
        runtime.execStream(
            id,
            List.of("sh", "-c", "echo out; echo err >&2; exit 4"),
            new io.jkubelet.agent.runtime.StreamIo(null, out, err, false));

    org.assertj.core.api.Assertions.assertThat(h.await()).isEqualTo(4);
    org.assertj.core.api.Assertions.assertThat(out.toString()).isEqualTo("out\n");
    org.assertj.core.api.Assertions.assertThat(err.toString()).isEqualTo("err\n");
  }

  @org.junit.jupiter.api.Test
  void execStreamWithATtyIsRawAndTakesResizes() throws Exception {
    String id = runningContainer();
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();

    io.jkubelet.agent.runtime.StreamHandle h =
        runtime.execStream(
            id,
            List.of("sh", "-c", "sleep 1; stty size"),
            new io.jkubelet.agent.runtime.StreamIo(null, out, null, true));
    h.resize(new io.jkubelet.agent.runtime.TerminalSize(100, 40));

    org.assertj.core.api.Assertions.assertThat(h.await()).isZero();
    org.assertj.core.api.Assertions.assertThat(out.toString()).isEqualTo("40 100\r\n");
  }

  @org.junit.jupiter.api.Test
  void attachCarriesStdinToTheMainProcessAndItsOutputBack() throws Exception {
    String id =
        startWithStdin(
            "reader",
            "read line; echo got $line; sleep 1",
            new io.jkubelet.agent.runtime.ContainerConfig.Stdio(false, true, false));
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    // NOTE: stdin stays open: Docker ends an attach's output when its stdin ends (unless the
    // container has StdinOnce), as it did under dockershim.
    java.io.PipedOutputStream typing = new java.io.PipedOutputStream();
    java.io.PipedInputStream stdin = new java.io.PipedInputStream(typing);

    io.jkubelet.agent.runtime.StreamHandle h =
        runtime.attach(
            id,
            new io.jkubelet.agent.runtime.StreamIo(
                stdin, out, new java.io.ByteArrayOutputStream(), false));
    typing.write("hello\n".getBytes());
    typing.flush();

    org.assertj.core.api.Assertions.assertThat(h.await())
        .isEqualTo(io.jkubelet.agent.runtime.StreamHandle.NO_EXIT_CODE);
    org.assertj.core.api.Assertions.assertThat(out.toString()).isEqualTo("got hello\n");
  }

  @org.junit.jupiter.api.Test
  void withStdinOnceTheContainerSeesEofWhenTheAttachedClientClosesStdin() throws Exception {
    String id =
        startWithStdin(
            "once",
            "cat; echo eof",
            new io.jkubelet.agent.runtime.ContainerConfig.Stdio(false, true, true));
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    io.jkubelet.agent.runtime.StreamHandle h =
        runtime.attach(
            id,
            new io.jkubelet.agent.runtime.StreamIo(
                new java.io.ByteArrayInputStream("hello\n".getBytes()),
                out,
                new java.io.ByteArrayOutputStream(),
                false));
    h.await();

    await()
        .atMost(WAIT)
        .until(
            () ->
                runtime.podStatus(podOf(id)).containers().stream()
                    .anyMatch(c -> c.id().equals(id) && !c.running()));
    await().atMost(WAIT).until(() -> out.toString().equals("hello\neof\n"));
  }

  /** A started container of a new pod running {@code sh -c script}, with the given stdio. */
  private String startWithStdin(
      String name, String script, io.jkubelet.agent.runtime.ContainerConfig.Stdio stdio)
      throws Exception {
    io.jkubelet.agent.runtime.PodRef pod = newPod();
    String sandboxId = runtime.runPodSandbox(sandbox(pod, 0, false));
    Map<String, String> labels =
        new java.util.HashMap<>(Labels.podLabels(pod, name, Labels.TYPE_CONTAINER));
    labels.put(Labels.NODE, node);
    String id =
        runtime.createContainer(
            sandboxId,
            io.jkubelet.agent.runtime.ContainerConfig.builder(
                    Labels.containerName(pod, name, 0), IMAGE)
                .entrypoint(List.of("sh", "-c", script))
                .cmd(List.of())
                .env(List.of())
                .workingDir("")
                .mounts(List.of())
                .resources(io.jkubelet.agent.runtime.ContainerConfig.Resources.NONE)
                .labels(labels)
                .stdio(stdio)
                .build());
    runtime.startContainer(id);
    pods.put(id, pod);
    return id;
  }

  private io.jkubelet.agent.runtime.PodRef podOf(String containerId) {
    return pods.get(containerId);
  }

  private final Map<String, io.jkubelet.agent.runtime.PodRef> pods =
      new java.util.concurrent.ConcurrentHashMap<>();

  @Override
  protected void serveHttp(String containerId, int port, String body) {
    ExecResult started =
        runtime.exec(
            containerId,
            List.of(
                "sh",
                "-c",
                "mkdir -p /tmp/www && printf '%s' \"$1\" > /tmp/www/index.html"
                    + " && httpd -p 127.0.0.1:$0 -h /tmp/www",
                Integer.toString(port),
                body),
            WAIT);
    if (started.exitCode() != 0) {
      throw new AssertionError("could not start httpd: " + started);
    }
    await()
        .atMost(WAIT)
        .until(
            () ->
                runtime
                    .exec(containerId, List.of("netstat", "-ltn"), WAIT)
                    .output()
                    .contains("127.0.0.1:" + port));
  }

  @Override
  protected int execsRunning(String containerId) {
    return TestDockerClient.execProcesses(docker, containerId);
  }

  @Override
  protected List<String> command(Program program) {
    List<String> command = new ArrayList<>(List.of("sh", "-c"));
    String script = "printf '%s' \"$1\"; ";
    if (program.runs().isPositive()) {
      script += "sleep " + program.runs().toMillis() / 1000.0 + "; ";
    }
    command.add(script + "exit " + program.exitCode());
    command.add("sh");
    command.add(program.output());
    return command;
  }
}
