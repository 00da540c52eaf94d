package io.jkubelet.agent.runtime;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a pod sandbox is made of. The container name and labels are computed by {@link Labels}.
 *
 * @param pod the pod
 * @param attempt the sandbox attempt (0 for the first, +1 for each re-creation)
 * @param image the pause image
 * @param hostname the hostname inside the pod, or "" for host networking
 * @param hostNetwork whether the pod shares the node's network namespace
 * @param ports the host port mappings of all containers of the pod
 * @param oomScoreAdj the OOM score adjustment asked for; implementations fall back to 0 with a
 *     warning when the host refuses a negative value
 * @param labels the container labels
 * @param cpuShares CPU shares for the sandbox (2 is Docker's minimum), or 0 for the default
 */
public record SandboxConfig(
    PodRef pod,
    int attempt,
    String image,
    String hostname,
    boolean hostNetwork,
    List<PortMapping> ports,
    int oomScoreAdj,
    Map<String, String> labels,
    long cpuShares) {

  public SandboxConfig {
    Objects.requireNonNull(pod, "pod");
    Objects.requireNonNull(image, "image");
    ports = List.copyOf(ports);
    labels = Map.copyOf(labels);
    if (attempt < 0) {
      throw new IllegalArgumentException("attempt must be >= 0, got " + attempt);
    }
  }

  /** The Docker container name, {@code k8s_POD_<pod>_<ns>_<uid>_<attempt>}. */
  public String containerName() {
    return Labels.sandboxName(pod, attempt);
  }

  /** A host port mapping. {@code protocol} is "tcp", "udp" or "sctp". */
  public record PortMapping(int containerPort, int hostPort, String hostIp, String protocol) {}
}
