package io.jkubelet.agent.cm;

import java.util.Objects;

/**
 * A cgroup could not be made or written. The message names the cgroup and says why, e.g. {@code
 * cgroup /kubepods/burstable/pod1234: cannot write cpu.shares: Permission denied}.
 */
public final class CgroupException extends RuntimeException {
  private final String cgroup;
  private final String reason;

  private CgroupException(String cgroup, String reason, Throwable cause) {
    super("cgroup " + cgroup + ": " + reason, cause);
    this.cgroup = Objects.requireNonNull(cgroup, "cgroup");
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  public static CgroupException of(String cgroup, String reason) {
    return new CgroupException(cgroup, reason, null);
  }

  public static CgroupException causedBy(String cgroup, String reason, Throwable cause) {
    return new CgroupException(cgroup, reason, cause);
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
