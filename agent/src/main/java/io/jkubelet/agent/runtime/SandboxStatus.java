package io.jkubelet.agent.runtime;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A pod sandbox as the runtime reports it.
 *
 * @param id the sandbox container's id
 * @param attempt the attempt number from its name ({@code k8s_POD_..._<attempt>})
 * @param ready whether the sandbox container runs
 * @param ips the pod's IPs, the primary first (one per family at most); empty for host networking
 *     or when not running
 * @param createdAt when it was created
 * @param labels all its labels
 */
public record SandboxStatus(
    String id,
    int attempt,
    boolean ready,
    List<String> ips,
    Instant createdAt,
    Map<String, String> labels) {

  public SandboxStatus {
    ips = List.copyOf(ips);
  }

  /** A sandbox with one IP, or none when {@code ip} is "". */
  public static SandboxStatus of(
      String id,
      int attempt,
      boolean ready,
      String ip,
      Instant createdAt,
      Map<String, String> labels) {
    return new SandboxStatus(
        id, attempt, ready, ip.isEmpty() ? List.of() : List.of(ip), createdAt, labels);
  }

  /** The primary IP, or "". */
  public String ip() {
    return ips.isEmpty() ? "" : ips.get(0);
  }

  /** This status with the IPs a network plugin gave the sandbox. */
  public SandboxStatus withIps(List<String> pluginIps) {
    return new SandboxStatus(id, attempt, ready, pluginIps, createdAt, labels);
  }

  /** Newest first: by creation time, then by attempt (which only grows). */
  public static final java.util.Comparator<SandboxStatus> NEWEST_FIRST =
      java.util.Comparator.comparing(SandboxStatus::createdAt)
          .thenComparingInt(SandboxStatus::attempt)
          .reversed();
}
