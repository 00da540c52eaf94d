package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.InternalServerErrorException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.exception.NotModifiedException;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

/** docker-java exceptions to {@link RuntimeError} kinds, without an engine. */
class DockerErrorsTest {

  @Test
  void engineErrorsKeepTheEnginesMessageAndTheOperationsKind() {
    ConflictException conflict =
        new ConflictException(
            "Status 409: {\"message\":\"Conflict. The container name \\\"/x\\\" is already in"
                + " use\"}\n");
    RuntimeError e = DockerErrors.translate(conflict, Kind.CREATE);
    assertThat(e.kind()).isEqualTo(Kind.CREATE);
    assertThat(e.getMessage()).isEqualTo("Conflict. The container name \"/x\" is already in use");
    assertThat(e.getCause()).isSameAs(conflict);
  }

  @Test
  void notFoundIsNotFoundWhateverTheOperation() {
    NotFoundException missing =
        new NotFoundException("Status 404: {\"message\":\"No such container: abc\"}");
    assertThat(DockerErrors.translate(missing, Kind.START).kind()).isEqualTo(Kind.NOT_FOUND);
    assertThat(DockerErrors.translate(missing, null).getMessage())
        .isEqualTo("No such container: abc");
    assertThat(DockerErrors.isNotFound(missing)).isTrue();
  }

  @Test
  void withoutAnOperationKindServerErrorsAreUnavailableAndClientErrorsOther() {
    assertThat(DockerErrors.translate(new InternalServerErrorException("boom"), null).kind())
        .isEqualTo(Kind.UNAVAILABLE);
    assertThat(DockerErrors.translate(new ConflictException("busy"), null).kind())
        .isEqualTo(Kind.OTHER);
    assertThat(DockerErrors.translate(new ConflictException("busy"), null).getMessage())
        .isEqualTo("busy");
  }

  @Test
  void ioFailuresAnywhereInTheChainAreUnavailable() {
    RuntimeError down =
        DockerErrors.translate(
            new RuntimeException(new ConnectException("Connection refused")), Kind.CREATE);
    assertThat(down.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(down.getMessage())
        .isEqualTo("the Docker engine did not answer: ConnectException: Connection refused");
    assertThat(
            DockerErrors.translate(new UncheckedIOException(new IOException("broken pipe")), null)
                .kind())
        .isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void aRuntimeErrorPassesThroughAndOtherFailuresAreOther() {
    RuntimeError mine = new RuntimeError(Kind.IMAGE_PULL, "no");
    assertThat(DockerErrors.translate(mine, Kind.CREATE)).isSameAs(mine);
    assertThat(DockerErrors.translate(new IllegalStateException("odd"), null).kind())
        .isEqualTo(Kind.OTHER);
    assertThat(DockerErrors.translate((Throwable) new AssertionError("x"), null).kind())
        .isEqualTo(Kind.OTHER);
  }

  @Test
  void alreadyDoneAnswers() {
    assertThat(DockerErrors.isNotModified(new NotModifiedException("Status 304"))).isTrue();
    assertThat(DockerErrors.isConflict(new ConflictException("Status 409"))).isTrue();
    assertThat(
            DockerErrors.isRemovalInProgress(
                new ConflictException(
                    "Status 409: {\"message\":\"removal of container x is already in"
                        + " progress\"}")))
        .isTrue();
    assertThat(DockerErrors.isRemovalInProgress(new ConflictException("Status 409: in use")))
        .isFalse();
  }
}
