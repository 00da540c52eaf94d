package io.jkubelet.agent.util;

import java.util.ArrayList;
import java.util.List;

/**
 * Where Docker puts a container's cgroup below a hierarchy's root, defined once for the stats and
 * the OOM watch: below its pod's cgroup ({@code <pod>/<id>} with the cgroupfs driver, {@code
 * <pod>/docker-<id>.scope} with systemd's) when jkubelet gives pods cgroups, else the engine's own
 * parent ({@code docker/<id>}, {@code system.slice/docker-<id>.scope}).
 */
public final class ContainerCgroupPaths {
  private static final List<String> POD_LAYOUTS = List.of("%s/%s", "%s/docker-%s.scope");
  private static final List<String> ENGINE_LAYOUTS =
      List.of("docker/%s", "system.slice/docker-%s.scope");

  private ContainerCgroupPaths() {}

  /**
   * The paths, relative to a hierarchy's root, where the container's cgroup may be, most likely
   * first.
   *
   * @param podCgroups the paths below a hierarchy where the container's pod's cgroup may be (none
   *     when pods get no cgroups)
   */
  public static List<String> candidates(List<String> podCgroups, String containerId) {
    List<String> out = new ArrayList<>();
    for (String pod : podCgroups) {
      String dir = pod.startsWith("/") ? pod.substring(1) : pod;
      for (String layout : POD_LAYOUTS) {
        out.add(String.format(layout, dir, containerId));
      }
    }
    for (String layout : ENGINE_LAYOUTS) {
      out.add(String.format(layout, containerId));
    }
    return out;
  }
}
