package io.jkubelet.agent.runtime.docker;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Container;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.SandboxStatus;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link InspectMapping} on inspect and list answers written as the engine's JSON, without an
 * engine.
 */
class InspectMappingTest {
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private static final String CREATED = "2024-03-01T10:00:00.000000001Z";
  private static final String STARTED = "2024-03-01T10:00:01Z";
  private static final String FINISHED = "2024-03-01T10:00:05Z";
  private static final String ZERO = "0001-01-01T00:00:00Z";
  private static final PodRef POD = new PodRef("uid-1", "web", "ns1");

  private static <T> T parse(String json, Class<T> type) {
    try {
      return JSON.readValue(json, type);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /**
   * An inspect answer as jkubelet reads it, by both of its parsers: docker-java's binding and the
   * streaming {@link ContainerInspect}, which must agree on it.
   */
  private static Inspected inspected(String json) {
    Inspected bound = Inspected.of(parse(json, InspectContainerResponse.class));
    try {
      assertThat(ContainerInspect.parse(new ByteArrayInputStream(json.getBytes(UTF_8))))
          .isEqualTo(bound);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return bound;
  }

  /** An inspect answer for an app container of {@link #POD} with the given {@code State}. */
  private static Inspected container(String state) {
    Map<String, String> labels = Labels.podLabels(POD, "app", Labels.TYPE_CONTAINER);
    labels.put(Labels.SANDBOX_ID, "sandbox-1");
    labels.put(Labels.CONTAINER_HASH, "5f3e2a1b");
    labels.put(Labels.RESTART_COUNT, "3");
    return inspected(
        """
        {"Id": "c1", "Name": "/k8s_app_web_ns1_uid-1_3", "Created": "%s",
         "Image": "sha256:abc",
         "State": %s,
         "Config": {"Image": "busybox:1.35", "Labels": %s}}
        """
            .formatted(CREATED, state, json(labels)));
  }

  private static String json(Object o) {
    try {
      return JSON.writeValueAsString(o);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String state(
      boolean running, long exitCode, String startedAt, String finishedAt, String extra) {
    return """
        {"Running": %s, "ExitCode": %d, "StartedAt": "%s", "FinishedAt": "%s"%s}
        """
        .formatted(running, exitCode, startedAt, finishedAt, extra);
  }

  static Stream<Arguments> lifecycles() {
    Instant created = Instant.parse(CREATED);
    Instant started = Instant.parse(STARTED);
    Instant finished = Instant.parse(FINISHED);
    return Stream.of(
        Arguments.of(
            Named.of("running", state(true, 0, STARTED, ZERO, "")),
            ContainerState.RUNNING,
            0,
            "",
            started,
            null),
        Arguments.of(
            Named.of("created, never started", state(false, 0, ZERO, ZERO, "")),
            ContainerState.CREATED,
            0,
            "",
            null,
            null),
        Arguments.of(
            Named.of("exited 0 is Completed", state(false, 0, STARTED, FINISHED, "")),
            ContainerState.EXITED,
            0,
            "Completed",
            started,
            finished),
        Arguments.of(
            Named.of("exited 3 is Error", state(false, 3, STARTED, FINISHED, "")),
            ContainerState.EXITED,
            3,
            "Error",
            started,
            finished),
        Arguments.of(
            Named.of("OOM-killed", state(false, 137, STARTED, FINISHED, ", \"OOMKilled\": true")),
            ContainerState.EXITED,
            137,
            "OOMKilled",
            started,
            finished),
        Arguments.of(
            Named.of(
                "a start failure is ContainerCannotRun, finished when created",
                state(false, 127, ZERO, ZERO, ", \"Error\": \"exec: no such file\"")),
            ContainerState.EXITED,
            127,
            "ContainerCannotRun",
            null,
            created),
        Arguments.of(
            Named.of(
                "an error without an exit code is ContainerCannotRun with 128",
                state(false, 0, ZERO, ZERO, ", \"Error\": \"bad\"")),
            ContainerState.EXITED,
            128,
            "ContainerCannotRun",
            null,
            created),
        Arguments.of(
            Named.of("dead is Error", state(false, 0, ZERO, ZERO, ", \"Dead\": true")),
            ContainerState.EXITED,
            0,
            "Error",
            null,
            created),
        Arguments.of(
            Named.of(
                "finished a moment before started is finished when started",
                state(false, 0, FINISHED, STARTED, "")),
            ContainerState.EXITED,
            0,
            "Completed",
            finished,
            finished));
  }

  @ParameterizedTest
  @MethodSource("lifecycles")
  void containerStatesMapAsDockershimDid(
      String state,
      ContainerState expected,
      int exitCode,
      String reason,
      Instant startedAt,
      Instant finishedAt) {
    ContainerStatus status = InspectMapping.containerStatus(container(state), Map.of());

    assertThat(status.state()).isEqualTo(expected);
    assertThat(status.exitCode()).isEqualTo(exitCode);
    assertThat(status.reason()).isEqualTo(reason);
    assertThat(status.startedAt()).isEqualTo(startedAt);
    assertThat(status.finishedAt()).isEqualTo(finishedAt);
    assertThat(status.createdAt()).isEqualTo(Instant.parse(CREATED));
  }

  @Test
  void labelsGiveNameSandboxHashAndRestartCount() {
    ContainerStatus status =
        InspectMapping.containerStatus(
            container(state(true, 0, STARTED, ZERO, "")),
            Map.of("sha256:abc", "docker-pullable://busybox@sha256:def"));

    assertThat(status.id()).isEqualTo("c1");
    assertThat(status.name()).isEqualTo("app");
    assertThat(status.sandboxId()).isEqualTo("sandbox-1");
    assertThat(status.hash()).isEqualTo("5f3e2a1b");
    assertThat(status.restartCount()).isEqualTo(3);
    assertThat(status.image()).isEqualTo("busybox:1.35");
    assertThat(status.imageRef()).isEqualTo("docker-pullable://busybox@sha256:def");
    assertThat(status.labels()).containsEntry(Labels.POD_UID, "uid-1");
    assertThat(status.message()).isEmpty();
  }

  @Test
  void anImageWithoutARepoDigestIsReferencedById() {
    ContainerStatus status =
        InspectMapping.containerStatus(container(state(true, 0, STARTED, ZERO, "")), Map.of());
    assertThat(status.imageRef()).isEqualTo("docker://sha256:abc");
    assertThat(InspectMapping.imageRef("sha256:abc", List.of("busybox@sha256:def")))
        .isEqualTo("docker-pullable://busybox@sha256:def");
    assertThat(InspectMapping.imageRef("sha256:abc", List.of())).isEqualTo("docker://sha256:abc");
  }

  @Test
  void aContainerWithoutStateIsUnknown() {
    Inspected r = inspected("{\"Id\": \"c2\", \"Created\": \"" + CREATED + "\"}");
    ContainerStatus status = InspectMapping.containerStatus(r, Map.of());
    assertThat(status.state()).isEqualTo(ContainerState.UNKNOWN);
    assertThat(status.name()).isEmpty();
    assertThat(status.imageRef()).isEmpty();
  }

  @Test
  void bothParsersReadWhetherTheContainerHasATerminal() {
    assertThat(inspected("{\"Id\": \"c3\", \"Config\": {\"Tty\": true}}").config().tty()).isTrue();
    assertThat(inspected("{\"Id\": \"c3\", \"Config\": {\"Tty\": false}}").config().tty())
        .isFalse();
    assertThat(inspected("{\"Id\": \"c3\"}").config().tty()).isFalse();
  }

  private static Inspected sandbox(boolean running, String networkMode) {
    Map<String, String> labels = Labels.podLabels(POD, "POD", Labels.TYPE_SANDBOX);
    return inspected(
        """
        {"Id": "s1", "Name": "/k8s_POD_web_ns1_uid-1_2", "Created": "%s",
         "State": {"Running": %s},
         "HostConfig": {"NetworkMode": "%s"},
         "NetworkSettings": {"IPAddress": "172.17.0.9",
           "Networks": {"other": {"IPAddress": "10.1.0.3"}, "bridge": {"IPAddress": "172.17.0.5"}}},
         "Config": {"Image": "pause:3.2", "Labels": %s}}
        """
            .formatted(CREATED, running, networkMode, json(labels)));
  }

  @Test
  void aRunningSandboxIsReadyWithItsBridgeIp() {
    SandboxStatus status = InspectMapping.sandboxStatus(sandbox(true, "default"));
    assertThat(status.id()).isEqualTo("s1");
    assertThat(status.attempt()).isEqualTo(2);
    assertThat(status.ready()).isTrue();
    assertThat(status.ip()).isEqualTo("172.17.0.5");
    assertThat(status.createdAt()).isEqualTo(Instant.parse(CREATED));
    assertThat(status.labels()).containsEntry(Labels.DOCKER_TYPE, Labels.TYPE_SANDBOX);
  }

  @Test
  void aStoppedOrHostNetworkSandboxHasNoIp() {
    assertThat(InspectMapping.sandboxStatus(sandbox(false, "default")).ip()).isEmpty();
    assertThat(InspectMapping.sandboxStatus(sandbox(false, "default")).ready()).isFalse();
    assertThat(InspectMapping.sandboxStatus(sandbox(true, "host")).ip()).isEmpty();
    assertThat(InspectMapping.sandboxStatus(sandbox(true, "host")).ready()).isTrue();
  }

  @Test
  void listedContainersBecomeSummariesOnlyWithAPodUid() {
    Map<String, String> labels = Labels.podLabels(POD, "POD", Labels.TYPE_SANDBOX);
    Container sandbox =
        parse(
            "{\"Id\": \"s1\", \"Created\": 1709287200, \"State\": \"running\", \"Labels\": "
                + json(labels)
                + "}",
            Container.class);
    Container app =
        parse(
            "{\"Id\": \"c1\", \"State\": \"exited\", \"Labels\": "
                + json(Labels.podLabels(POD, "app", Labels.TYPE_CONTAINER))
                + "}",
            Container.class);
    Container foreign =
        parse("{\"Id\": \"x\", \"Labels\": {\"io.kubernetes.pod.uid\": \"\"}}", Container.class);

    ContainerSummary s = InspectMapping.summary(sandbox).orElseThrow();
    assertThat(s)
        .isEqualTo(
            new ContainerSummary(
                "s1",
                POD,
                Labels.POD_CONTAINER_NAME,
                true,
                ContainerState.RUNNING,
                Instant.ofEpochSecond(1709287200),
                0));
    ContainerSummary a = InspectMapping.summary(app).orElseThrow();
    assertThat(a.containerName()).isEqualTo("app");
    assertThat(a.sandbox()).isFalse();
    assertThat(a.state()).isEqualTo(ContainerState.EXITED);
    assertThat(a.createdAt()).isEqualTo(Instant.EPOCH);
    assertThat(InspectMapping.summary(foreign)).isEmpty();
  }

  @Test
  void dockerTimesParseAndTheZeroTimeIsNull() {
    assertThat(InspectMapping.parseTime("2024-03-01T10:11:12.123456789Z"))
        .isEqualTo(Instant.parse("2024-03-01T10:11:12.123456789Z"));
    assertThat(InspectMapping.parseTime("2024-03-01T10:11:12Z"))
        .isEqualTo(Instant.parse("2024-03-01T10:11:12Z"));
    assertThat(InspectMapping.parseTime("2024-03-01T12:11:12.5+02:00"))
        .isEqualTo(Instant.parse("2024-03-01T10:11:12.5Z"));
    assertThat(InspectMapping.parseTime(ZERO)).isNull();
    assertThat(InspectMapping.parseTime("")).isNull();
    assertThat(InspectMapping.parseTime("yesterday")).isNull();
    assertThat(InspectMapping.parseTime(null)).isNull();
  }

  @Test
  void listStatesMap() {
    assertThat(InspectMapping.listState("running")).isEqualTo(ContainerState.RUNNING);
    assertThat(InspectMapping.listState("created")).isEqualTo(ContainerState.CREATED);
    assertThat(InspectMapping.listState("exited")).isEqualTo(ContainerState.EXITED);
    assertThat(InspectMapping.listState("dead")).isEqualTo(ContainerState.EXITED);
    assertThat(InspectMapping.listState("paused")).isEqualTo(ContainerState.UNKNOWN);
    assertThat(InspectMapping.listState(null)).isEqualTo(ContainerState.UNKNOWN);
  }
}
