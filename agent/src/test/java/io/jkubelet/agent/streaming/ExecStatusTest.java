package io.jkubelet.agent.streaming;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The error channel's statuses, byte for byte as upstream's {@code json.Marshal(status)}. */
class ExecStatusTest {

  @Test
  void successIsAStatusWithEmptyMetadata() {
    assertThat(new String(ExecStatus.SUCCESS.json(), UTF_8))
        .isEqualTo("{\"metadata\":{},\"status\":\"Success\"}");
  }

  @Test
  void aNonZeroExitCarriesTheCodeAsAnExitCodeCause() {
    assertThat(new String(ExecStatus.nonZeroExit(3).json(), UTF_8))
        .isEqualTo(
            "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"command terminated with"
                + " non-zero exit code: Error executing in Docker Container: 3\","
                + "\"reason\":\"NonZeroExitCode\",\"details\":{\"causes\":[{\"reason\":"
                + "\"ExitCode\",\"message\":\"3\"}]}}");
  }

  @Test
  void anInternalErrorIsA500WithTheErrorAsCause() {
    ExecStatus s = ExecStatus.internalError("error executing command in container: boom");
    assertThat(new String(s.json(), UTF_8))
        .isEqualTo(
            "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Internal error occurred:"
                + " error executing command in container: boom\",\"reason\":\"InternalError\","
                + "\"details\":{\"causes\":[{\"message\":\"error executing command in container:"
                + " boom\"}]},\"code\":500}");
    assertThat(s.text())
        .isEqualTo("Internal error occurred: error executing command in container: boom");
  }
}
