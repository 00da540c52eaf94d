package io.jkubelet.agent.runtime;

import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What an app or init container is made of, already resolved from the pod spec, as the CRI's {@code
 * ContainerConfig}: the image's defaults apply where {@code entrypoint} or {@code cmd} is null.
 * Built by {@link #builder}, whose defaults are the runtime's.
 *
 * @param name the Docker container name, {@code k8s_<container>_<pod>_<ns>_<uid>_<restartCount>}
 * @param image the image reference
 * @param process what it runs: command, arguments, environment, working directory
 * @param mounts bind mounts from the host
 * @param labels the container labels
 * @param stdio whether it gets a TTY and an open stdin
 * @param linux its cgroup, limits and security
 */
public record ContainerConfig(
    String name,
    String image,
    Process process,
    List<Mount> mounts,
    Map<String, String> labels,
    Stdio stdio,
    Linux linux) {

  public ContainerConfig {
    Records.requireNonNull(
        ContainerConfig.class, name, image, process, mounts, labels, stdio, linux);
    mounts = List.copyOf(mounts);
    labels = Map.copyOf(labels);
  }

  /**
   * What the container runs.
   *
   * @param entrypoint the entrypoint (the pod's {@code command}), or null for the image's
   * @param cmd the arguments (the pod's {@code args}), or null for the image's; an empty list
   *     clears the image's CMD
   * @param env the environment, in order, as {@code NAME=value}
   * @param workingDir the working directory, or "" for the image's
   */
  public record Process(
      List<String> entrypoint, List<String> cmd, List<String> env, String workingDir) {
    public Process {
      entrypoint = entrypoint == null ? null : List.copyOf(entrypoint);
      cmd = cmd == null ? null : List.copyOf(cmd);
      env = List.copyOf(env);
      workingDir = workingDir == null ? "" : workingDir;
    }
  }

  /**
   * The container's Linux settings, as the CRI's {@code LinuxContainerConfig}.
   *
   * @param resources cgroup limits
   * @param security the user, groups, privileges and namespaces it runs with
   * @param cgroupParent the cgroup the container goes under (its pod's cgroup, Docker's {@code
   *     HostConfig.CgroupParent}), or "" for the runtime's default
   */
  public record Linux(Resources resources, Security security, @Nullable String cgroupParent) {
    public Linux {
      Records.requireNonNull(Linux.class, resources, security);
      cgroupParent = cgroupParent == null ? "" : cgroupParent;
    }
  }

  /**
   * A container {@code name} from {@code image}: the image's entrypoint, command and working
   * directory, no environment, mounts or labels, no TTY or stdin, no limits, {@link
   * Security#DEFAULT}, the runtime's cgroup parent.
   */
  public static Builder builder(String name, String image) {
    return new Builder(name, image);
  }

  /** Builds a {@link ContainerConfig}; each setter replaces a default. Not thread-safe. */
  public static final class Builder {
    private final String name;
    private final String image;
    private List<String> entrypoint;
    private List<String> cmd;
    private List<String> env = List.of();
    private String workingDir = "";
    private List<Mount> mounts = List.of();
    private Resources resources = Resources.NONE;
    private Map<String, String> labels = Map.of();
    private Stdio stdio = Stdio.NONE;
    private Security security = Security.DEFAULT;
    private String cgroupParent = "";

    private Builder(String name, String image) {
      this.name = name;
      this.image = image;
    }

    public Builder entrypoint(List<String> entrypoint) {
      this.entrypoint = entrypoint;
      return this;
    }

    public Builder cmd(List<String> cmd) {
      this.cmd = cmd;
      return this;
    }

    public Builder env(List<String> env) {
      this.env = env;
      return this;
    }

    public Builder workingDir(String workingDir) {
      this.workingDir = workingDir;
      return this;
    }

    public Builder mounts(List<Mount> mounts) {
      this.mounts = mounts;
      return this;
    }

    public Builder resources(Resources resources) {
      this.resources = resources;
      return this;
    }

    public Builder labels(Map<String, String> labels) {
      this.labels = labels;
      return this;
    }

    public Builder stdio(Stdio stdio) {
      this.stdio = stdio;
      return this;
    }

    public Builder security(Security security) {
      this.security = security;
      return this;
    }

    public Builder cgroupParent(String cgroupParent) {
      this.cgroupParent = cgroupParent;
      return this;
    }

    public ContainerConfig build() {
      return new ContainerConfig(
          name,
          image,
          new Process(entrypoint, cmd, env, workingDir),
          mounts,
          labels,
          stdio,
          new Linux(resources, security, cgroupParent));
    }
  }

  /**
   * The container's standard streams, as the pod's {@code tty}, {@code stdin} and {@code
   * stdinOnce}: with {@code stdinOnce}, the runtime closes stdin when the first attached client
   * detaches, and the container sees EOF.
   */
  public record Stdio(boolean tty, boolean stdin, boolean stdinOnce) {
    /** No TTY and no stdin: the default. */
    public static final Stdio NONE = new Stdio(false, false, false);
  }

  /**
   * A bind mount of a host path into the container.
   *
   * @param propagation the pod's {@code mountPropagation}, as CRI's
   */
  public record Mount(
      String hostPath, String containerPath, boolean readOnly, Propagation propagation) {
    public Mount {
      propagation = propagation == null ? Propagation.PRIVATE : propagation;
    }
  }

  /**
   * Mount propagation, as CRI's {@code MountPropagation}: {@code None} is private, {@code
   * HostToContainer} rslave, {@code Bidirectional} rshared.
   */
  public enum Propagation {
    PRIVATE,
    HOST_TO_CONTAINER,
    BIDIRECTIONAL
  }

  /**
   * cgroup limits. Zero means unlimited / the runtime's default.
   *
   * @param cpuShares relative CPU weight from {@code requests.cpu} (1024 per core, minimum 2)
   * @param cpuQuotaMicros CFS quota per period from {@code limits.cpu}
   * @param cpuPeriodMicros CFS period (100000 when a quota is set)
   * @param memoryLimitBytes memory limit from {@code limits.memory}; swap is limited to the same
   * @param oomScoreAdj the process's {@code oom_score_adj} (the CRI's {@code OomScoreAdj}); 0 is
   *     the runtime's default. A runtime on a host that refuses a negative value uses 0 there.
   */
  public record Resources(
      long cpuShares,
      long cpuQuotaMicros,
      long cpuPeriodMicros,
      long memoryLimitBytes,
      int oomScoreAdj) {
    public static final Resources NONE = new Resources(0, 0, 0, 0, 0);

    public Resources withOomScoreAdj(int v) {
      return new Resources(cpuShares, cpuQuotaMicros, cpuPeriodMicros, memoryLimitBytes, v);
    }
  }

  /** The same container with other resources. */
  public ContainerConfig withResources(Resources r) {
    return new ContainerConfig(
        name,
        image,
        process,
        mounts,
        labels,
        stdio,
        new Linux(r, linux.security(), linux.cgroupParent()));
  }

  /**
   * A container's security context, as the CRI's {@code LinuxContainerSecurityContext} that
   * upstream's kuberuntime makes from the pod's and the container's (the container wins).
   *
   * @param user the Docker user: {@code uid}, {@code name}, or {@code uid:gid} / {@code name:gid};
   *     "" for the image's
   * @param supplementalGroups extra groups of the process ({@code fsGroup} first, then {@code
   *     supplementalGroups})
   * @param privileged all capabilities and devices, no masked paths
   * @param capabilities the capabilities added to and dropped from the runtime's default set
   * @param readOnlyRootfs the root filesystem is mounted read-only
   * @param noNewPrivileges {@code allowPrivilegeEscalation: false}: the no_new_privs bit
   * @param seccompProfile upstream's profile path: "" or {@code unconfined} (dockershim runs
   *     unconfined), {@code runtime/default} or {@code docker/default} (the engine's default), or
   *     {@code localhost/<absolute path>} of a JSON profile
   * @param namespaces the namespaces it shares
   */
  public record Security(
      @Nullable String user,
      List<Long> supplementalGroups,
      boolean privileged,
      Capabilities capabilities,
      boolean readOnlyRootfs,
      boolean noNewPrivileges,
      @Nullable String seccompProfile,
      Namespaces namespaces) {
    /** The image's user, no extra groups or capabilities, own PID namespace, engine defaults. */
    public static final Security DEFAULT =
        new Security("", List.of(), false, Capabilities.NONE, false, false, "", Namespaces.DEFAULT);

    public Security {
      Records.requireNonNull(Security.class, supplementalGroups, capabilities, namespaces);
      user = user == null ? "" : user;
      supplementalGroups = List.copyOf(supplementalGroups);
      seccompProfile = seccompProfile == null ? "" : seccompProfile;
    }
  }

  /**
   * Capabilities added to and dropped from the runtime's default set.
   *
   * @param add capabilities added, as written in the spec ({@code NET_ADMIN} or {@code
   *     CAP_NET_ADMIN})
   * @param drop capabilities dropped ({@code ALL} drops every one)
   */
  public record Capabilities(List<String> add, List<String> drop) {
    public static final Capabilities NONE = new Capabilities(List.of(), List.of());

    public Capabilities {
      add = List.copyOf(add);
      drop = List.copyOf(drop);
    }
  }

  /**
   * The namespaces a container shares.
   *
   * @param pid the PID namespace: the container's own, the sandbox's ({@code
   *     shareProcessNamespace}) or the host's ({@code hostPID})
   * @param hostNetwork the pod is on the host's network: the container also takes the host's UTS
   *     namespace
   */
  public record Namespaces(NamespaceMode pid, boolean hostNetwork) {
    public static final Namespaces DEFAULT = new Namespaces(NamespaceMode.CONTAINER, false);

    public Namespaces {
      Objects.requireNonNull(pid, "pid");
    }
  }

  /** Whose namespace a container uses, as the CRI's {@code NamespaceMode}. */
  public enum NamespaceMode {
    /** The pod's: the sandbox's namespace. */
    POD,
    /** The container's own. */
    CONTAINER,
    /** The host's. */
    NODE
  }
}
