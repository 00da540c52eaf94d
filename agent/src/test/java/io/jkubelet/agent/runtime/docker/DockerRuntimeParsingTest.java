package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.exception.ConflictException;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.RuntimeError;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The engine-independent parts of {@link DockerRuntime}. */
class DockerRuntimeParsingTest {

  @Test
  void imageReferencesSplitIntoRepositoryAndTag() {
    assertThat(DockerRuntime.repositoryAndTag("busybox")).containsExactly("busybox", "latest");
    assertThat(DockerRuntime.repositoryAndTag("jkubelet/busybox:1.35"))
        .containsExactly("jkubelet/busybox", "1.35");
    assertThat(DockerRuntime.repositoryAndTag("registry:5000/team/app"))
        .containsExactly("registry:5000/team/app", "latest");
    assertThat(DockerRuntime.repositoryAndTag("registry:5000/team/app:v2"))
        .containsExactly("registry:5000/team/app", "v2");
    assertThat(DockerRuntime.repositoryAndTag("app@sha256:abcd"))
        .containsExactly("app", "sha256:abcd");
  }

  @Test
  void dockerTimesParseAndTheZeroTimeIsNull() {
    assertThat(DockerRuntime.parseTime("2024-03-01T10:11:12.123456789Z"))
        .isEqualTo(Instant.parse("2024-03-01T10:11:12.123456789Z"));
    assertThat(DockerRuntime.parseTime("2024-03-01T10:11:12Z"))
        .isEqualTo(Instant.parse("2024-03-01T10:11:12Z"));
    assertThat(DockerRuntime.parseTime("2024-03-01T12:11:12.5+02:00"))
        .isEqualTo(Instant.parse("2024-03-01T10:11:12.5Z"));
    assertThat(DockerRuntime.parseTime("0001-01-01T00:00:00Z")).isNull();
    assertThat(DockerRuntime.parseTime("")).isNull();
    assertThat(DockerRuntime.parseTime(null)).isNull();
  }

  @Test
  void listStatesMap() {
    assertThat(DockerRuntime.listState("running")).isEqualTo(ContainerState.RUNNING);
    assertThat(DockerRuntime.listState("created")).isEqualTo(ContainerState.CREATED);
    assertThat(DockerRuntime.listState("exited")).isEqualTo(ContainerState.EXITED);
    assertThat(DockerRuntime.listState("dead")).isEqualTo(ContainerState.EXITED);
    assertThat(DockerRuntime.listState("paused")).isEqualTo(ContainerState.UNKNOWN);
    assertThat(DockerRuntime.listState(null)).isEqualTo(ContainerState.UNKNOWN);
  }

  @Test
  void engineErrorsKeepTheEnginesMessage() {
    ConflictException conflict =
        new ConflictException(
            "Status 409: {\"message\":\"Conflict. The container name \\\"/x\\\" is already in"
                + " use\"}\n");
    RuntimeError e = DockerRuntime.translate(conflict, RuntimeError.Kind.CREATE);
    assertThat(e.kind()).isEqualTo(RuntimeError.Kind.CREATE);
    assertThat(e.getMessage()).isEqualTo("Conflict. The container name \"/x\" is already in use");

    RuntimeError down =
        DockerRuntime.translate(
            new RuntimeException(new ConnectException("Connection refused")),
            RuntimeError.Kind.CREATE);
    assertThat(down.kind()).isEqualTo(RuntimeError.Kind.UNAVAILABLE);
    assertThat(
            DockerRuntime.translate(
                    new UncheckedIOException(new java.io.IOException("broken pipe")), null)
                .kind())
        .isEqualTo(RuntimeError.Kind.UNAVAILABLE);
  }
}
