package io.jkubelet.agent.cm;

import java.util.Objects;

/**
 * A cgroup could not be made or written. The message names the cgroup and says why, e.g. {@code
 * cgroup /kubepods/burstable/pod1234: cannot write cpu.shares: Permission denied}.
 */
public final class CgroupException extends RuntimeException {
  private final String cgroup;
  private final String reason;

  public CgroupException(String cgroup, String reason) {
    super("cgroup " + cgroup + ": " + reason);
    this.cgroup = Objects.requireNonNull(cgroup, "cgroup");
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** The cgroup's driver path. */
  public String cgroup() {
    return cgroup;
  }

  /** Why, without the cgroup's name. */
  public String reason() {
    return reason;
  }
}
