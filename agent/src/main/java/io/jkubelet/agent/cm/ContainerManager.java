package io.jkubelet.agent.cm;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.systemd.Systemd;
import io.jkubelet.agent.util.Lifecycle;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The pods' cgroups, as upstream's {@code cm.ContainerManager} with {@code cgroupsPerQOS}: {@code
 * kubepods} (limited to node allocatable), its QoS tiers, and one cgroup per pod, which the pod's
 * sandbox and containers are created in.
 *
 * <p>The pod sync calls {@link #updateQos} and then {@link #ensurePod} when a pod's cgroup does not
 * {@link #exists} yet, before it creates the pod's sandbox, and passes {@link #cgroupParent} to the
 * runtime for the sandbox and every container; housekeeping calls {@link #cleanup} and {@link
 * #updateQos}. {@link #NONE}, used when {@code cgroupsPerQOS} is false, makes no cgroup and gives
 * no parent: the runtime's default.
 *
 * <p>Implementations are thread-safe.
 */
public interface ContainerManager extends Lifecycle {
  /** No cgroups of jkubelet's: the runtime's default parent. */
  ContainerManager NONE = new NoContainerManager();

  /**
   * The manager for {@code options}: {@link #NONE} without {@code cgroupsPerQOS}. Starts nothing.
   *
   * @param node the node's capacity and reservations, for {@code kubepods}' limits
   */
  static ContainerManager create(CgroupOptions options, NodeAllocatable node) {
    return options.cgroupsPerQOS()
        ? new QosContainerManager(options, node, CgroupFiles.Rmdir.KERNEL, Systemd::connect)
        : NONE;
  }

  /**
   * Docker's {@code HostConfig.CgroupParent} for the pod's sandbox and each of its containers: the
   * pod cgroup's path ({@code /kubepods/burstable/pod<uid>}) with the cgroupfs driver, its slice
   * ({@code kubepods-burstable-pod<uid, - as _>.slice}) with systemd; "" for the runtime's default.
   */
  String cgroupParent(Pod pod);

  /**
   * Whether the pod's cgroup exists (upstream's {@code PodContainerManager.Exists}). The pod sync
   * asks before {@link #ensurePod}: a pod with running containers but no cgroup was started outside
   * the hierarchy (before jkubelet used cgroups, or under another {@code cgroupRoot}) and is killed
   * to start again inside it. {@link #NONE} says true: there is nothing to make.
   */
  boolean exists(Pod pod);

  /**
   * Where the cgroup of the pod with {@code uid} may be below each hierarchy's mount, one path per
   * QoS tier (the pod's class is not known from its uid): for readers of its usage, such as the
   * stats. Empty for {@link #NONE}. Needs no {@link #start()}.
   */
  List<String> podCgroupPaths(String uid);

  /**
   * The cgroup of all pods ({@code kubepods}) below each hierarchy's mount, in the manager's driver
   * (upstream's {@code GetPodCgroupRoot}); null for {@link #NONE}, which makes none.
   */
  default String podCgroupRoot() {
    return null;
  }

  /**
   * Makes the pod's cgroup with its limits, unless it exists.
   *
   * @throws CgroupException naming the cgroup and the reason when it cannot be made
   */
  void ensurePod(Pod pod);

  /**
   * Removes the cgroups of pods whose uid is not in {@code activeUids}. One that still has
   * processes, or that the kernel refuses to remove, is reported and tried again next time.
   *
   * @return what happened to each orphaned pod cgroup
   */
  List<Removal> cleanup(Set<String> activeUids);

  /**
   * Writes the QoS tiers' cpu shares for the active pods (Burstable: their summed cpu requests).
   *
   * @throws CgroupException when a tier cannot be written
   */
  void updateQos(Collection<Pod> activePods);
}
