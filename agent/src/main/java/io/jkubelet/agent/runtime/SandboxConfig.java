package io.jkubelet.agent.runtime;

import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a pod sandbox is made of, as the CRI's {@code PodSandboxConfig}. The container name and
 * labels are computed by {@link Labels}. Built by {@link #builder}, whose defaults are the
 * runtime's.
 *
 * @param pod the pod
 * @param attempt the sandbox attempt (0 for the first, +1 for each re-creation)
 * @param image the pause image
 * @param hostname the hostname inside the pod, or "" for host networking
 * @param labels the container labels
 * @param annotations the pod's annotations (a network plugin reads its bandwidth from them)
 * @param network the sandbox's network
 * @param linux its cgroup, resources and security
 */
public record SandboxConfig(
    PodRef pod,
    int attempt,
    String image,
    @Nullable String hostname,
    Map<String, String> labels,
    Map<String, String> annotations,
    Network network,
    Linux linux) {

  public SandboxConfig {
    Records.requireNonNull(SandboxConfig.class, pod, image, labels, annotations, network, linux);
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
    if (attempt < 0) {
      throw new IllegalArgumentException("attempt must be >= 0, got " + attempt);
    }
  }

  /**
   * The sandbox's network.
   *
   * @param hostNetwork whether the pod shares the node's network namespace
   * @param ports the host port mappings of all containers of the pod
   * @param dns the sandbox's resolv.conf, shared by its containers; null keeps the runtime's
   * @param pluginNetwork whether a network plugin gives the sandbox its network: the runtime then
   *     creates it with none of its own (no bridge, no port bindings), as dockershim with CNI
   */
  public record Network(
      boolean hostNetwork, List<PortMapping> ports, Dns dns, boolean pluginNetwork) {
    public Network {
      ports = List.copyOf(ports);
    }
  }

  /**
   * The sandbox's Linux settings, as the CRI's {@code LinuxPodSandboxConfig}.
   *
   * @param cgroupParent the cgroup the sandbox goes under (the pod's cgroup, Docker's {@code
   *     HostConfig.CgroupParent}), or "" for the runtime's default
   * @param cpuShares CPU shares for the sandbox (2 is Docker's minimum), or 0 for the default
   * @param oomScoreAdj the OOM score adjustment asked for; implementations fall back to 0 with a
   *     warning when the host refuses a negative value
   * @param security the pod-level user, groups, namespaces and sysctls
   */
  public record Linux(String cgroupParent, long cpuShares, int oomScoreAdj, Security security) {
    public Linux {
      cgroupParent = cgroupParent == null ? "" : cgroupParent;
      Objects.requireNonNull(security, "security");
    }
  }

  /**
   * A sandbox of {@code pod} from {@code image}: the first attempt, no hostname, on the runtime's
   * own network with no ports, the runtime's resolv.conf and cgroup parent, no labels or
   * annotations, default CPU shares and OOM score, {@link Security#DEFAULT}.
   */
  public static Builder builder(PodRef pod, String image) {
    return new Builder(pod, image);
  }

  /** Builds a {@link SandboxConfig}; each setter replaces a default. Not thread-safe. */
  public static final class Builder {
    private final PodRef pod;
    private final String image;
    private int attempt;
    private String hostname = "";
    private boolean hostNetwork;
    private List<PortMapping> ports = List.of();
    private int oomScoreAdj;
    private Map<String, String> labels = Map.of();
    private long cpuShares;
    private Security security = Security.DEFAULT;
    private Dns dns;
    private Map<String, String> annotations = Map.of();
    private boolean pluginNetwork;
    private String cgroupParent = "";

    private Builder(PodRef pod, String image) {
      this.pod = pod;
      this.image = image;
    }

    public Builder attempt(int attempt) {
      this.attempt = attempt;
      return this;
    }

    public Builder hostname(String hostname) {
      this.hostname = hostname;
      return this;
    }

    public Builder hostNetwork(boolean hostNetwork) {
      this.hostNetwork = hostNetwork;
      return this;
    }

    public Builder ports(List<PortMapping> ports) {
      this.ports = ports;
      return this;
    }

    public Builder oomScoreAdj(int oomScoreAdj) {
      this.oomScoreAdj = oomScoreAdj;
      return this;
    }

    public Builder labels(Map<String, String> labels) {
      this.labels = labels;
      return this;
    }

    public Builder cpuShares(long cpuShares) {
      this.cpuShares = cpuShares;
      return this;
    }

    public Builder security(Security security) {
      this.security = security;
      return this;
    }

    public Builder dns(Dns dns) {
      this.dns = dns;
      return this;
    }

    public Builder annotations(Map<String, String> annotations) {
      this.annotations = annotations;
      return this;
    }

    public Builder pluginNetwork(boolean pluginNetwork) {
      this.pluginNetwork = pluginNetwork;
      return this;
    }

    public Builder cgroupParent(String cgroupParent) {
      this.cgroupParent = cgroupParent;
      return this;
    }

    public SandboxConfig build() {
      return new SandboxConfig(
          pod,
          attempt,
          image,
          hostname,
          labels,
          annotations,
          new Network(hostNetwork, ports, dns, pluginNetwork),
          new Linux(cgroupParent, cpuShares, oomScoreAdj, security));
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
    return network.hostNetwork()
        ? this
        : new SandboxConfig(
            pod,
            attempt,
            image,
            hostname,
            labels,
            annotations,
            new Network(false, network.ports(), network.dns(), true),
            linux);
  }

  /** This sandbox under {@code parent}, a cgroup parent as Docker's {@code CgroupParent}. */
  public SandboxConfig withCgroupParent(String parent) {
    return new SandboxConfig(
        pod,
        attempt,
        image,
        hostname,
        labels,
        annotations,
        network,
        new Linux(parent, linux.cpuShares(), linux.oomScoreAdj(), linux.security()));
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
