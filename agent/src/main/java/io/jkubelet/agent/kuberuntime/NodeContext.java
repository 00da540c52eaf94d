package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.dns.PodDns;
import io.jkubelet.agent.env.NodeAllocatable;
import io.jkubelet.config.Records;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * What containers learn of their node: its allocatable resources (the limits {@code
 * resourceFieldRef} reads when a container has none) and the root directory (pod directories,
 * termination-message files, and {@code seccomp/} for Localhost profiles), and how its pods resolve
 * names; and the cgroup a pod's sandbox and containers go under.
 *
 * @param cgroupParent a pod's cgroup as the runtime's cgroup parent (the container manager's {@code
 *     cgroupParent}), "" for the runtime's default
 */
public record NodeContext(
    NodeAllocatable allocatable, Path rootDir, PodDns dns, Function<Pod, String> cgroupParent) {
  public NodeContext {
    Records.requireNonNull(NodeContext.class, allocatable, rootDir, dns, cgroupParent);
  }

  /** Pods in the runtime's default cgroup parent, "". */
  public static final Function<Pod, String> DEFAULT_CGROUP_PARENT = pod -> "";

  /** {@code <root-dir>/pods/<uid>}, upstream's {@code getPodDir}. */
  public Path podDir(String podUid) {
    return rootDir.resolve("pods").resolve(podUid);
  }

  /** Upstream's {@code --seccomp-profile-root}: {@code <root-dir>/seccomp}. */
  public Path seccompRoot() {
    return rootDir.resolve("seccomp");
  }

  /** {@code <root-dir>/pods/<uid>/containers/<name>}, upstream's {@code getPodContainerDir}. */
  public Path containerDir(String podUid, String containerName) {
    return rootDir.resolve("pods").resolve(podUid).resolve("containers").resolve(containerName);
  }
}
