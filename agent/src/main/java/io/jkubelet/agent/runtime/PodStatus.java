package io.jkubelet.agent.runtime;

import java.util.List;
import java.util.Optional;

/**
 * Everything the runtime knows about one pod: its sandboxes (newest first) and its containers
 * (newest first). This is the runtime's view; the API status is generated from it in {@code
 * status}.
 */
public record PodStatus(
    PodRef pod, List<SandboxStatus> sandboxes, List<ContainerStatus> containers) {

  public PodStatus {
    sandboxes = sandboxes.stream().sorted(SandboxStatus.NEWEST_FIRST).toList();
    containers = containers.stream().sorted(ContainerStatus.NEWEST_FIRST).toList();
  }

  public static PodStatus empty(PodRef pod) {
    return new PodStatus(pod, List.of(), List.of());
  }

  /** The newest sandbox, if any. */
  public Optional<SandboxStatus> latestSandbox() {
    return sandboxes.stream().findFirst();
  }

  /** The pod IP of the newest ready sandbox, or "". */
  public String ip() {
    List<String> ips = ips();
    return ips.isEmpty() ? "" : ips.get(0);
  }

  /** The pod IPs of the newest ready sandbox, the primary first; empty when none. */
  public List<String> ips() {
    return sandboxes.stream()
        .filter(SandboxStatus::ready)
        .map(SandboxStatus::ips)
        .findFirst()
        .orElse(List.of());
  }

  /** The newest container of that name, if any. */
  public Optional<ContainerStatus> latest(String containerName) {
    return containers.stream().filter(c -> c.name().equals(containerName)).findFirst();
  }

  /** Whether anything of the pod still runs. */
  public boolean anyRunning() {
    return sandboxes.stream().anyMatch(SandboxStatus::ready)
        || containers.stream().anyMatch(ContainerStatus::running);
  }
}
