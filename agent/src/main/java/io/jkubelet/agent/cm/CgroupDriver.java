package io.jkubelet.agent.cm;

import io.jkubelet.config.ConfigException;
import java.util.Locale;

/**
 * How cgroups are named, as upstream's {@code --cgroup-driver}: {@code cgroupfs} paths or systemd
 * slices. It must match the container runtime's driver (Docker's {@code native.cgroupdriver}).
 */
public enum CgroupDriver {
  CGROUPFS,
  SYSTEMD;

  /** The value in flags and the configuration file: the name in lower case. */
  public String flagValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The driver named {@code value}.
   *
   * @throws ConfigException naming {@code cgroupDriver} for anything else
   */
  public static CgroupDriver of(String value) {
    for (CgroupDriver d : values()) {
      if (d.flagValue().equals(value)) {
        return d;
      }
    }
    throw new ConfigException("cgroupDriver", "must be cgroupfs or systemd, got \"" + value + "\"");
  }

  /** The cgroup's path below a hierarchy's mount, as upstream's {@code CgroupManager.Name}. */
  public String path(CgroupName name) {
    return this == SYSTEMD ? name.toSystemd() : name.toCgroupfs();
  }

  /** A path below a hierarchy's mount back into a name, as upstream's {@code CgroupName}. */
  public CgroupName parse(String path) {
    return this == SYSTEMD ? CgroupName.parseSystemd(path) : CgroupName.parseCgroupfs(path);
  }

  /**
   * The value of Docker's {@code HostConfig.CgroupParent} for a container in cgroup {@code name},
   * as dockershim's {@code GenerateExpectedCgroupParent}: the cgroupfs path, or only the last slice
   * for systemd (Docker's systemd driver expects a slice name).
   */
  public String dockerCgroupParent(CgroupName name) {
    String path = path(name);
    return this == SYSTEMD ? path.substring(path.lastIndexOf('/') + 1) : path;
  }
}
