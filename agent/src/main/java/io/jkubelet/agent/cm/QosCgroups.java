package io.jkubelet.agent.cm;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.pod.PodRequests;
import java.util.Collection;

/**
 * The QoS tiers under {@code kubepods}, as upstream's {@code qosContainerManagerImpl}: Guaranteed
 * pods sit directly in {@code kubepods}; {@code kubepods/burstable} and {@code kubepods/besteffort}
 * hold the others. BestEffort always has 2 cpu shares; Burstable has the shares of the sum of its
 * pods' cpu requests ({@code setCPUCgroupConfig}), recomputed from the active pods on each {@link
 * #update}. (QoS memory reservation, {@code qosReserved}, is an alpha gate upstream and not done;
 * huge pages are not limited.)
 *
 * <p>Thread-safe: {@link #update} is serialized by this object's lock, as upstream's mutex.
 */
final class QosCgroups {
  private final CgroupManager cgroups;
  private final CgroupName kubepods;

  QosCgroups(CgroupManager cgroups, CgroupName kubepods) {
    this.cgroups = cgroups;
    this.kubepods = kubepods;
  }

  /** The cgroup a pod of class {@code qos} goes under. */
  CgroupName parent(QosClass qos) {
    return qos == QosClass.GUARANTEED ? kubepods : kubepods.child(qos.cgroupName());
  }

  /**
   * Makes the Burstable and BestEffort cgroups, or brings existing ones to their settings: none for
   * Burstable until the first update, 2 shares for BestEffort.
   *
   * @throws CgroupException when one cannot be made or written
   */
  void ensure() {
    ensure(parent(QosClass.BURSTABLE), ResourceConfig.EMPTY);
    ensure(parent(QosClass.BEST_EFFORT), ResourceConfig.shares(CpuUnits.MIN_SHARES));
  }

  private void ensure(CgroupName name, ResourceConfig config) {
    if (cgroups.exists(name)) {
      cgroups.update(name, config);
    } else {
      cgroups.create(name, config);
    }
  }

  /**
   * Writes the tiers' cpu shares for {@code activePods}.
   *
   * @throws CgroupException when a tier cannot be written
   */
  synchronized void update(Collection<Pod> activePods) {
    cgroups.update(parent(QosClass.BURSTABLE), ResourceConfig.shares(burstableShares(activePods)));
    cgroups.update(parent(QosClass.BEST_EFFORT), ResourceConfig.shares(CpuUnits.MIN_SHARES));
  }

  /** The Burstable tier's shares: those of the summed cpu requests of its pods. */
  static long burstableShares(Collection<Pod> activePods) {
    long milliCpu = 0;
    for (Pod pod : activePods) {
      if (QosClass.of(pod) == QosClass.BURSTABLE) {
        milliCpu += PodRequests.of(pod).milliRequest(PodRequests.CPU);
      }
    }
    return CpuUnits.milliCpuToShares(milliCpu);
  }
}
