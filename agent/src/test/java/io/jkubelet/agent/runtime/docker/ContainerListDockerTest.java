package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Against a real engine: {@link ContainerList} gives the same summaries as docker-java's listing
 * did, for running, exited and created sandboxes and app containers, and leaves out containers
 * whose pod UID label is empty or absent; {@link ContainerInspect} reads the same {@link Inspected}
 * as docker-java's inspect, and a container that is gone fails the same way.
 */
@Timeout(120)
class ContainerListDockerTest {
  private static final String BUSYBOX = "jkubelet/busybox:1.35";
  private static final String PAUSE = "jkubelet/pause:3.2";
  private static final String TEST_LABEL = "io.jkubelet.test";
  private static final String RUN_ID = UUID.randomUUID().toString().substring(0, 13);
  private static final Scope SCOPE = new Scope(Map.of(TEST_LABEL, RUN_ID));

  private static DockerClient docker;
  private static PodInspector inspector;

  @BeforeAll
  static void connect() {
    docker = TestDockerClient.connect();
    inspector = new PodInspector(docker);
  }

  @AfterAll
  static void close() throws IOException {
    if (docker == null) {
      return;
    }
    TestDockerClient.removeLabelled(docker, TEST_LABEL, RUN_ID);
    inspector.close();
    docker.close();
  }

  @Test
  void theStreamedListingEqualsDockerJavas() {
    PodRef pod = new PodRef("uid-" + RUN_ID, "web", "ns1");
    String sandbox = create(PAUSE, podLabels(pod, Labels.POD_CONTAINER_NAME, true), true);
    String exited = create(BUSYBOX, podLabels(pod, "app", false), true, "sh", "-c", "exit 3");
    String created = create(BUSYBOX, podLabels(pod, "side", false), false, "true");
    Map<String, String> emptyUid = new HashMap<>(Map.of(Labels.POD_UID, ""));
    create(PAUSE, emptyUid, true);
    create(PAUSE, new HashMap<>(), true);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !docker.inspectContainerCmd(exited).exec().getState().getRunning());

    List<ContainerSummary> streamed = sorted(inspector.listContainers(SCOPE));
    List<ContainerSummary> viaDockerJava =
        sorted(inspector.listThroughDockerJava(SCOPE.filter(Labels.POD_UID, null)));

    assertThat(streamed).isEqualTo(viaDockerJava);
    assertThat(streamed)
        .extracting(ContainerSummary::id, ContainerSummary::containerName, ContainerSummary::state)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(
                sandbox, Labels.POD_CONTAINER_NAME, ContainerState.RUNNING),
            org.assertj.core.groups.Tuple.tuple(exited, "app", ContainerState.EXITED),
            org.assertj.core.groups.Tuple.tuple(created, "side", ContainerState.CREATED));
    assertThat(streamed).allSatisfy(s -> assertThat(s.pod()).isEqualTo(pod));
    assertThat(streamed).allSatisfy(s -> assertThat(s.createdAt().getEpochSecond()).isPositive());
  }

  @Test
  void theStreamedInspectEqualsDockerJavas(@TempDir Path dir) throws Exception {
    // No pod labels: the listing test must not see these.
    String sandbox = create(PAUSE, new HashMap<>(Map.of("role", "sandbox")), true);
    Map<String, String> labels = new HashMap<>(Map.of("role", "app"));
    labels.put(Labels.TERMINATION_MESSAGE_PATH, "/dev/termination-log");
    Files.writeString(dir.resolve("log"), "bye");
    String exited =
        docker
            .createContainerCmd(BUSYBOX)
            .withLabels(withRunLabel(labels))
            .withCmd("sh", "-c", "exit 3")
            .withHostConfig(
                HostConfig.newHostConfig()
                    .withBinds(
                        new Bind(
                            dir.resolve("log").toString(), new Volume("/dev/termination-log"))))
            .exec()
            .getId();
    docker.startContainerCmd(exited).exec();
    String created = create(BUSYBOX, new HashMap<>(Map.of("role", "side")), false, "true");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !docker.inspectContainerCmd(exited).exec().getState().getRunning());
    ContainerInspect streamed =
        new ContainerInspect(DockerClients.transportOf(docker).orElseThrow(), null);

    for (String id : List.of(sandbox, exited, created)) {
      assertThat(streamed.inspect(id))
          .isEqualTo(Inspected.of(docker.inspectContainerCmd(id).exec()));
    }
    Inspected app = streamed.inspect(exited);
    assertThat(app.state().exitCode()).isEqualTo(3L);
    assertThat(app.state().finishedAt()).isNotNull();
    assertThat(app.mounts())
        .contains(new Inspected.Mount(dir.resolve("log").toString(), "/dev/termination-log"));
    assertThat(streamed.inspect(sandbox).network().ips().get("bridge")).isNotEmpty();
    assertThatThrownBy(() -> streamed.inspect("no-such-container-" + RUN_ID))
        .isInstanceOf(NotFoundException.class);
  }

  private static Map<String, String> withRunLabel(Map<String, String> labels) {
    Map<String, String> all = new HashMap<>(labels);
    all.put(TEST_LABEL, RUN_ID);
    return all;
  }

  private static Map<String, String> podLabels(PodRef pod, String name, boolean sandbox) {
    return Labels.podLabels(pod, name, sandbox ? Labels.TYPE_SANDBOX : Labels.TYPE_CONTAINER);
  }

  private static String create(
      String image, Map<String, String> labels, boolean start, String... cmd) {
    var create = docker.createContainerCmd(image).withLabels(withRunLabel(labels));
    if (cmd.length > 0) {
      create.withCmd(cmd);
    }
    String id = create.exec().getId();
    if (start) {
      docker.startContainerCmd(id).exec();
    }
    return id;
  }

  private static List<ContainerSummary> sorted(List<ContainerSummary> list) {
    return list.stream().sorted(Comparator.comparing(ContainerSummary::id)).toList();
  }
}
