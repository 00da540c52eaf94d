package io.jkubelet.agent.cm;

import java.util.List;

/** What removing one cgroup did. Removal never throws; a cgroup not removed is tried again. */
public sealed interface Removal {
  /** The cgroup's driver path. */
  String cgroup();

  /** Removed from every hierarchy it was in. */
  record Removed(String cgroup) implements Removal {}

  /** It did not exist. */
  record Absent(String cgroup) implements Removal {}

  /** Processes are still in it or below it; nothing was removed. */
  record Busy(String cgroup, List<Integer> pids) implements Removal {
    public Busy {
      pids = List.copyOf(pids);
    }
  }

  /** The kernel (or the file system) refused. */
  record Failed(String cgroup, String reason) implements Removal {}
}
