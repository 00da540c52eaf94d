package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.jkubelet.agent.runtime.RuntimeError;
import java.io.IOException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

class ErrorsTest {
  private static KubernetesClientException answer(int code, String message) {
    return new KubernetesClientException(
        new StatusBuilder().withCode(code).withMessage(message).build());
  }

  @Test
  void rootCauseAndDescriptionOfAWrappedIoFailure() {
    Exception e =
        new KubernetesClientException(
            "An error has occurred.", new IOException("x", new ConnectException("refused")));
    assertThat(Errors.rootCause(e)).isInstanceOf(ConnectException.class);
    assertThat(Errors.describeApi(e)).isEqualTo("ConnectException: refused");
    assertThat(Errors.httpCode(e)).isZero();
    assertThat(Errors.find(e, IOException.class)).isPresent();
  }

  @Test
  void anAnswerIsDescribedByItsStatusAndMessage() {
    KubernetesClientException e = answer(403, "nodes \"a\" is forbidden");
    assertThat(Errors.describeApi(e)).isEqualTo("HTTP 403: nodes \"a\" is forbidden");
    assertThat(Errors.isRefused(e)).isTrue();
    assertThat(Errors.isRefused(answer(409, "conflict"))).isFalse();
    assertThat(Errors.isRefused(answer(429, "slow down"))).isFalse();
    assertThat(Errors.isRefused(answer(503, "unavailable"))).isFalse();
    assertThat(Errors.isConflict(answer(409, "c"))).isTrue();
    assertThat(Errors.isNotFound(answer(404, "gone"))).isTrue();
  }

  @Test
  void aFailureGetsItsCauseOnceAndKeepsItsTypeAndDetail() {
    IOException cause = new IOException("connection reset");
    RuntimeError e =
        Errors.withCause(new RuntimeError(RuntimeError.Kind.UNAVAILABLE, "engine gone"), cause);
    assertThat(e.kind()).isEqualTo(RuntimeError.Kind.UNAVAILABLE);
    assertThat(e).hasMessage("engine gone").hasCause(cause);
    assertThat(new RuntimeError(RuntimeError.Kind.OTHER, "x").getCause()).isNull();
    assertThatThrownBy(() -> Errors.withCause(e, new IOException("again")))
        .isInstanceOf(IllegalStateException.class);
  }
}
