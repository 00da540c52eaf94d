package io.jkubelet.agent.cm;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Each pod's cgroup, as upstream's {@code podContainerManagerImpl}: {@code pod<uid>} under its QoS
 * tier, made with the limits of {@link ResourceConfig#forPod} (and the node's {@code podPidsLimit})
 * before its sandbox; the cgroups of pods no longer active removed in housekeeping.
 *
 * <p>As upstream's, an existing pod cgroup is not rewritten: a pod's resources cannot change. Not
 * as upstream's: orphans are not killed here (the runtime stops containers); a cgroup with
 * processes left is reported {@link Removal.Busy} and tried again at the next cleanup.
 *
 * <p>Thread-safe as its {@link CgroupManager}.
 *
 * @param options with the driver resolved: its driver, CFS quota and period and pids limit
 */
record PodCgroups(CgroupManager cgroups, QosCgroups qos, CgroupOptions options) {
  static final String PREFIX = "pod";

  /** The pod's cgroup: {@code pod<uid>} under its QoS tier. */
  CgroupName name(Pod pod) {
    return qos.parent(QosClass.of(pod)).child(PREFIX + pod.getMetadata().getUid());
  }

  /** Docker's {@code CgroupParent} for the pod's sandbox and containers. */
  String cgroupParent(Pod pod) {
    return options.driver().dockerCgroupParent(name(pod));
  }

  /** The limits the pod's cgroup is made with. */
  ResourceConfig config(Pod pod) {
    ResourceConfig c = ResourceConfig.forPod(pod, options.cpuCFSQuota(), options.cpuPeriodMicros());
    return options.podPidsLimit() > 0 ? c.withPidsLimit(options.podPidsLimit()) : c;
  }

  /** Whether the pod's cgroup exists. */
  boolean exists(Pod pod) {
    return cgroups.exists(name(pod));
  }

  /**
   * Makes the pod's cgroup unless it exists.
   *
   * @throws CgroupException when it cannot be made or written
   */
  void ensure(Pod pod) {
    CgroupName name = name(pod);
    if (!cgroups.exists(name)) {
      cgroups.create(name, config(pod));
    }
  }

  /** The pod cgroups in the QoS tiers, by pod uid (upstream's {@code GetAllPodsFromCgroups}). */
  Map<String, CgroupName> found() {
    Map<String, CgroupName> out = new LinkedHashMap<>();
    for (QosClass q : QosClass.values()) {
      CgroupName parent = qos.parent(q);
      for (CgroupName child : cgroups.children(parent)) {
        String last = child.last();
        if (child.components().size() == parent.components().size() + 1
            && last.startsWith(PREFIX)
            && last.length() > PREFIX.length()) {
          out.put(last.substring(PREFIX.length()), child);
        }
      }
    }
    return out;
  }

  /** Removes the cgroups of pods whose uid is not in {@code activeUids}. */
  List<Removal> cleanup(Set<String> activeUids) {
    List<Removal> out = new ArrayList<>();
    found()
        .forEach(
            (uid, name) -> {
              if (!activeUids.contains(uid)) {
                out.add(cgroups.remove(name));
              }
            });
    return out;
  }
}
