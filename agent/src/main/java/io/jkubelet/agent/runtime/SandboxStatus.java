package io.jkubelet.agent.runtime;

import java.time.Instant;
import java.util.Map;

/**
 * A pod sandbox as the runtime reports it.
 *
 * @param id the sandbox container's id
 * @param attempt the attempt number from its name ({@code k8s_POD_..._<attempt>})
 * @param ready whether the sandbox container runs
 * @param ip the pod IP, or "" for host networking or when not running
 * @param createdAt when it was created
 * @param labels all its labels
 */
public record SandboxStatus(
    String id,
    int attempt,
    boolean ready,
    String ip,
    Instant createdAt,
    Map<String, String> labels) {

  /** Newest first: by creation time, then by attempt (which only grows). */
  public static final java.util.Comparator<SandboxStatus> NEWEST_FIRST =
      java.util.Comparator.comparing(SandboxStatus::createdAt)
          .thenComparingInt(SandboxStatus::attempt)
          .reversed();
}
