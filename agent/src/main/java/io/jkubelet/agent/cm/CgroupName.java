package io.jkubelet.agent.cm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A cgroup's name independent of the driver, as upstream's {@code CgroupName}: its components from
 * the root, e.g. {@code [kubepods, burstable, pod<uid>]}. {@link #toCgroupfs()} and {@link
 * #toSystemd()} give the literal paths the two drivers use.
 */
public record CgroupName(List<String> components) {
  private static final String SLICE = ".slice";

  /** The root cgroup. */
  public static final CgroupName ROOT = new CgroupName(List.of());

  public CgroupName {
    components = List.copyOf(components);
  }

  /**
   * The child of this cgroup.
   *
   * @throws IllegalArgumentException for a component with {@code /} or {@code _}: the systemd form
   *     maps {@code -} to {@code _}, which must stay reversible (upstream's {@code NewCgroupName})
   */
  public CgroupName child(String component) {
    if (component.isEmpty() || component.contains("/") || component.contains("_")) {
      throw new IllegalArgumentException(
          "invalid character in component \"" + component + "\" of a cgroup name");
    }
    List<String> c = new ArrayList<>(components);
    c.add(component);
    return new CgroupName(c);
  }

  /** The last component, or "" for the root. */
  public String last() {
    return components.isEmpty() ? "" : components.get(components.size() - 1);
  }

  /** Whether this is the root. */
  public boolean isRoot() {
    return components.isEmpty();
  }

  /** The cgroupfs driver's path, e.g. {@code /kubepods/burstable/pod1234-abcd}. */
  public String toCgroupfs() {
    return "/" + String.join("/", components);
  }

  /**
   * The systemd driver's path, as upstream's {@code ToSystemd}: {@code [kubepods, burstable,
   * pod1234-abcd]} is {@code
   * /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234_abcd.slice}.
   */
  public String toSystemd() {
    if (components.isEmpty() || (components.size() == 1 && components.get(0).isEmpty())) {
      return "/";
    }
    StringBuilder path = new StringBuilder();
    StringBuilder prefix = new StringBuilder();
    for (String part : components) {
      String escaped = part.replace('-', '_');
      path.append('/').append(prefix).append(escaped).append(SLICE);
      prefix.append(escaped).append('-');
    }
    return path.toString();
  }

  /** A cgroupfs path back into a name, as upstream's {@code ParseCgroupfsToCgroupName}. */
  public static CgroupName parseCgroupfs(String path) {
    String p = path.startsWith("/") ? path.substring(1) : path;
    if (p.isEmpty()) {
      return ROOT;
    }
    return new CgroupName(Arrays.asList(p.split("/")));
  }

  /**
   * A systemd path (or slice name) back into a name, as upstream's {@code
   * ParseSystemdToCgroupName}: the last slice's name, split at {@code -}, {@code _} back to {@code
   * -}.
   */
  public static CgroupName parseSystemd(String path) {
    String base = path.substring(path.lastIndexOf('/') + 1);
    if (base.endsWith(SLICE)) {
      base = base.substring(0, base.length() - SLICE.length());
    }
    List<String> parts = new ArrayList<>();
    for (String part : base.split("-", -1)) {
      parts.add(part.replace('_', '-'));
    }
    return new CgroupName(parts);
  }

  @Override
  public String toString() {
    return toCgroupfs();
  }
}
