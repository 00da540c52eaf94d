package io.jkubelet.agent.runtime;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What an app or init container is made of, already resolved from the pod spec: the image's
 * defaults apply where {@code entrypoint} or {@code cmd} is null.
 *
 * @param name the Docker container name, {@code k8s_<container>_<pod>_<ns>_<uid>_<restartCount>}
 * @param image the image reference
 * @param entrypoint the entrypoint (the pod's {@code command}), or null for the image's
 * @param cmd the arguments (the pod's {@code args}), or null for the image's; an empty list clears
 *     the image's CMD
 * @param env the environment, in order, as {@code NAME=value}
 * @param workingDir the working directory, or "" for the image's
 * @param mounts bind mounts from the host
 * @param resources cgroup limits
 * @param labels the container labels
 * @param stdio whether it gets a TTY and an open stdin
 * @param security the user, groups, privileges and namespaces it runs with
 * @param cgroupParent the cgroup the container goes under (its pod's cgroup, Docker's {@code
 *     HostConfig.CgroupParent}), or "" for the runtime's default
 */
public record ContainerConfig(
    String name,
    String image,
    List<String> entrypoint,
    List<String> cmd,
    List<String> env,
    String workingDir,
    List<Mount> mounts,
    Resources resources,
    Map<String, String> labels,
    Stdio stdio,
    Security security,
    String cgroupParent) {

  /** A container in the runtime's default cgroup parent. */
  public ContainerConfig(
      String name,
      String image,
      List<String> entrypoint,
      List<String> cmd,
      List<String> env,
      String workingDir,
      List<Mount> mounts,
      Resources resources,
      Map<String, String> labels,
      Stdio stdio,
      Security security) {
    this(
        name,
        image,
        entrypoint,
        cmd,
        env,
        workingDir,
        mounts,
        resources,
        labels,
        stdio,
        security,
        "");
  }

  /** A container with the runtime's default security: see {@link Security#DEFAULT}. */
  public ContainerConfig(
      String name,
      String image,
      List<String> entrypoint,
      List<String> cmd,
      List<String> env,
      String workingDir,
      List<Mount> mounts,
      Resources resources,
      Map<String, String> labels,
      Stdio stdio) {
    this(
        name,
        image,
        entrypoint,
        cmd,
        env,
        workingDir,
        mounts,
        resources,
        labels,
        stdio,
        Security.DEFAULT);
  }

  public ContainerConfig {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(image, "image");
    entrypoint = entrypoint == null ? null : List.copyOf(entrypoint);
    cmd = cmd == null ? null : List.copyOf(cmd);
    env = List.copyOf(env);
    workingDir = workingDir == null ? "" : workingDir;
    mounts = List.copyOf(mounts);
    labels = Map.copyOf(labels);
    Objects.requireNonNull(resources, "resources");
    Objects.requireNonNull(stdio, "stdio");
    Objects.requireNonNull(security, "security");
    cgroupParent = cgroupParent == null ? "" : cgroupParent;
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

    public Mount(String hostPath, String containerPath, boolean readOnly) {
      this(hostPath, containerPath, readOnly, Propagation.PRIVATE);
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
    public static final Resources NONE = new Resources(0, 0, 0, 0);

    /** Limits with the runtime's default {@code oom_score_adj}. */
    public Resources(
        long cpuShares, long cpuQuotaMicros, long cpuPeriodMicros, long memoryLimitBytes) {
      this(cpuShares, cpuQuotaMicros, cpuPeriodMicros, memoryLimitBytes, 0);
    }

    public Resources withOomScoreAdj(int v) {
      return new Resources(cpuShares, cpuQuotaMicros, cpuPeriodMicros, memoryLimitBytes, v);
    }
  }

  /** The same container with other resources. */
  public ContainerConfig withResources(Resources r) {
    return new ContainerConfig(
        name,
        image,
        entrypoint,
        cmd,
        env,
        workingDir,
        mounts,
        r,
        labels,
        stdio,
        security,
        cgroupParent);
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
   * @param addCapabilities capabilities added to the runtime's default set, as written in the spec
   *     ({@code NET_ADMIN} or {@code CAP_NET_ADMIN})
   * @param dropCapabilities capabilities dropped ({@code ALL} drops every one)
   * @param readOnlyRootfs the root filesystem is mounted read-only
   * @param noNewPrivileges {@code allowPrivilegeEscalation: false}: the no_new_privs bit
   * @param seccompProfile upstream's profile path: "" or {@code unconfined} (dockershim runs
   *     unconfined), {@code runtime/default} or {@code docker/default} (the engine's default), or
   *     {@code localhost/<absolute path>} of a JSON profile
   * @param pid the PID namespace: the container's own, the sandbox's ({@code
   *     shareProcessNamespace}) or the host's ({@code hostPID})
   * @param hostNetwork the pod is on the host's network: the container also takes the host's UTS
   *     namespace
   */
  public record Security(
      String user,
      List<Long> supplementalGroups,
      boolean privileged,
      List<String> addCapabilities,
      List<String> dropCapabilities,
      boolean readOnlyRootfs,
      boolean noNewPrivileges,
      String seccompProfile,
      NamespaceMode pid,
      boolean hostNetwork) {
    /** The image's user, no extra groups or capabilities, own PID namespace, engine defaults. */
    public static final Security DEFAULT =
        new Security(
            "",
            List.of(),
            false,
            List.of(),
            List.of(),
            false,
            false,
            "",
            NamespaceMode.CONTAINER,
            false);

    public Security {
      user = user == null ? "" : user;
      supplementalGroups = List.copyOf(supplementalGroups);
      addCapabilities = List.copyOf(addCapabilities);
      dropCapabilities = List.copyOf(dropCapabilities);
      seccompProfile = seccompProfile == null ? "" : seccompProfile;
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
