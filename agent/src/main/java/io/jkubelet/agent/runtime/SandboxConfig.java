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
 * @param security the pod-level user, groups, namespaces and sysctls
 * @param dns the sandbox's resolv.conf, shared by its containers; null keeps the runtime's
 * @param annotations the pod's annotations (a network plugin reads its bandwidth from them)
 * @param pluginNetwork whether a network plugin gives the sandbox its network: the runtime then
 *     creates it with none of its own (no bridge, no port bindings), as dockershim with CNI
 * @param cgroupParent the cgroup the sandbox goes under (the pod's cgroup, Docker's {@code
 *     HostConfig.CgroupParent}), or "" for the runtime's default
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
    long cpuShares,
    Security security,
    Dns dns,
    Map<String, String> annotations,
    boolean pluginNetwork,
    String cgroupParent) {

  /** A sandbox in the runtime's default cgroup parent. */
  public SandboxConfig(
      PodRef pod,
      int attempt,
      String image,
      String hostname,
      boolean hostNetwork,
      List<PortMapping> ports,
      int oomScoreAdj,
      Map<String, String> labels,
      long cpuShares,
      Security security,
      Dns dns,
      Map<String, String> annotations,
      boolean pluginNetwork) {
    this(
        pod,
        attempt,
        image,
        hostname,
        hostNetwork,
        ports,
        oomScoreAdj,
        labels,
        cpuShares,
        security,
        dns,
        annotations,
        pluginNetwork,
        "");
  }

  /** A sandbox on the runtime's own network, without annotations. */
  public SandboxConfig(
      PodRef pod,
      int attempt,
      String image,
      String hostname,
      boolean hostNetwork,
      List<PortMapping> ports,
      int oomScoreAdj,
      Map<String, String> labels,
      long cpuShares,
      Security security,
      Dns dns) {
    this(
        pod,
        attempt,
        image,
        hostname,
        hostNetwork,
        ports,
        oomScoreAdj,
        labels,
        cpuShares,
        security,
        dns,
        Map.of(),
        false);
  }

  /** A sandbox with the runtime's resolv.conf. */
  public SandboxConfig(
      PodRef pod,
      int attempt,
      String image,
      String hostname,
      boolean hostNetwork,
      List<PortMapping> ports,
      int oomScoreAdj,
      Map<String, String> labels,
      long cpuShares,
      Security security) {
    this(
        pod,
        attempt,
        image,
        hostname,
        hostNetwork,
        ports,
        oomScoreAdj,
        labels,
        cpuShares,
        security,
        null);
  }

  /** A sandbox with the default security: see {@link Security#DEFAULT}. */
  public SandboxConfig(
      PodRef pod,
      int attempt,
      String image,
      String hostname,
      boolean hostNetwork,
      List<PortMapping> ports,
      int oomScoreAdj,
      Map<String, String> labels,
      long cpuShares) {
    this(
        pod,
        attempt,
        image,
        hostname,
        hostNetwork,
        ports,
        oomScoreAdj,
        labels,
        cpuShares,
        Security.DEFAULT);
  }

  public SandboxConfig {
    Objects.requireNonNull(pod, "pod");
    Objects.requireNonNull(image, "image");
    ports = List.copyOf(ports);
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
    Objects.requireNonNull(security, "security");
    cgroupParent = cgroupParent == null ? "" : cgroupParent;
    if (attempt < 0) {
      throw new IllegalArgumentException("attempt must be >= 0, got " + attempt);
    }
  }

  /**
   * A resolv.conf: nameservers, search domains and options, in order. Written as dockershim's
   * {@code rewriteResolvFile} writes it; when all three are empty the runtime's file stays.
   */
  public record Dns(List<String> servers, List<String> searches, List<String> options) {
    public Dns {
      servers = List.copyOf(servers);
      searches = List.copyOf(searches);
      options = List.copyOf(options);
    }

    /** The file's text, or "" when there is nothing to write. */
    public String render() {
      StringBuilder b = new StringBuilder();
      servers.forEach(s -> b.append("nameserver ").append(s).append('\n'));
      if (!searches.isEmpty()) {
        b.append("search ").append(String.join(" ", searches)).append('\n');
      }
      if (!options.isEmpty()) {
        b.append("options ").append(String.join(" ", options)).append('\n');
      }
      return b.toString();
    }
  }

  /**
   * This sandbox as a network plugin's: the runtime gives it no network of its own. A host-network
   * sandbox stays on the host's.
   */
  public SandboxConfig onPluginNetwork() {
    return hostNetwork
        ? this
        : new SandboxConfig(
            pod,
            attempt,
            image,
            hostname,
            false,
            ports,
            oomScoreAdj,
            labels,
            cpuShares,
            security,
            dns,
            annotations,
            true,
            cgroupParent);
  }

  /** This sandbox under {@code parent}, a cgroup parent as Docker's {@code CgroupParent}. */
  public SandboxConfig withCgroupParent(String parent) {
    return new SandboxConfig(
        pod,
        attempt,
        image,
        hostname,
        hostNetwork,
        ports,
        oomScoreAdj,
        labels,
        cpuShares,
        security,
        dns,
        annotations,
        pluginNetwork,
        parent);
  }

  /** The Docker container name, {@code k8s_POD_<pod>_<ns>_<uid>_<attempt>}. */
  public String containerName() {
    return Labels.sandboxName(pod, attempt);
  }

  /** A host port mapping. {@code protocol} is "tcp", "udp" or "sctp". */
  public record PortMapping(int containerPort, int hostPort, String hostIp, String protocol) {}

  /**
   * The pod-level security of the sandbox, as the CRI's {@code LinuxSandboxSecurityContext} and
   * sysctls. Whatever it says, a sandbox runs with {@code no-new-privileges}, as dockershim's.
   *
   * @param runAsUser the pod's {@code runAsUser}, or null for the image's
   * @param runAsGroup the pod's {@code runAsGroup}, or null; applied only with a user
   * @param supplementalGroups {@code fsGroup}, then {@code supplementalGroups}
   * @param hostPid the pod's {@code hostPID}
   * @param hostIpc the pod's {@code hostIPC}; otherwise the sandbox's IPC namespace is shareable
   * @param sysctls the pod's sysctls, name to value, set in the sandbox's namespaces
   */
  public record Security(
      Long runAsUser,
      Long runAsGroup,
      List<Long> supplementalGroups,
      boolean hostPid,
      boolean hostIpc,
      Map<String, String> sysctls) {
    public static final Security DEFAULT =
        new Security(null, null, List.of(), false, false, Map.of());

    public Security {
      supplementalGroups = List.copyOf(supplementalGroups);
      sysctls = Map.copyOf(sysctls);
    }
  }
}
