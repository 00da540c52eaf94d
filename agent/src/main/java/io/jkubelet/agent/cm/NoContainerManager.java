package io.jkubelet.agent.cm;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.util.Lifecycle;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/** {@link ContainerManager#NONE}: no cgroups, as upstream's noop managers. Stateless. */
final class NoContainerManager implements ContainerManager, Lifecycle.Idle {
  @Override
  public String cgroupParent(Pod pod) {
    return "";
  }

  @Override
  public boolean exists(Pod pod) {
    return true;
  }

  @Override
  public List<String> podCgroupPaths(String uid) {
    return List.of();
  }

  @Override
  public void ensurePod(Pod pod) {}

  @Override
  public List<Removal> cleanup(Set<String> activeUids) {
    return List.of();
  }

  @Override
  public void updateQos(Collection<Pod> activePods) {}

  @Override
  public String toString() {
    return "ContainerManager.NONE";
  }
}
