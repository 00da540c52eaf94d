package io.jkubelet.agent.streaming;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;

/**
 * How a remote command ended, as the {@code metav1.Status} that upstream writes on the error
 * stream: {@code Success}; {@code NonZeroExitCode} with the code as an {@code ExitCode} cause
 * (kubectl exits with it); or an {@code InternalError}. Protocol v4 sends the JSON always; the
 * older ones send the message as text, and nothing on success.
 */
public record ExecStatus(boolean success, String reason, String message, int exitCode) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static final ExecStatus SUCCESS = new ExecStatus(true, "", "", 0);

  /** A command that exited with a non-zero code, in dockershim's words. */
  public static ExecStatus nonZeroExit(int code) {
    return new ExecStatus(
        false,
        "NonZeroExitCode",
        "command terminated with non-zero exit code: Error executing in Docker Container: " + code,
        code);
  }

  /** Upstream's {@code apierrors.NewInternalError(err)}. */
  public static ExecStatus internalError(String error) {
    return new ExecStatus(false, "InternalError", error, 0);
  }

  /** The {@code metav1.Status} JSON, as upstream's {@code json.Marshal(status)}. */
  public byte[] json() {
    ObjectNode s = JSON.createObjectNode();
    s.putObject("metadata");
    if (success) {
      s.put("status", "Success");
      return bytes(s);
    }
    s.put("status", "Failure");
    s.put("message", text());
    s.put("reason", reason);
    ObjectNode cause = s.putObject("details").putArray("causes").addObject();
    if (reason.equals("NonZeroExitCode")) {
      cause.put("reason", "ExitCode");
      cause.put("message", Integer.toString(exitCode));
    } else {
      cause.put("message", message);
      s.put("code", 500);
    }
    return bytes(s);
  }

  /** The status's message, as {@code StatusError.Error()} says it (protocols before v4). */
  public String text() {
    return reason.equals("InternalError") ? "Internal error occurred: " + message : message;
  }

  private static byte[] bytes(ObjectNode node) {
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }
}
