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
 * @param tty whether to allocate a TTY
 * @param stdin whether to keep stdin open
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
    boolean tty,
    boolean stdin) {

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
   */
  public record Resources(
      long cpuShares, long cpuQuotaMicros, long cpuPeriodMicros, long memoryLimitBytes) {
    public static final Resources NONE = new Resources(0, 0, 0, 0);
  }
}
