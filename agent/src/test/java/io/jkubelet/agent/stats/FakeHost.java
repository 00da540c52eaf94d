package io.jkubelet.agent.stats;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A fake cgroup tree (v1 or v2) and proc file system in a directory, for the stats tests: the files
 * the summary reads, with the values a test sets.
 */
final class FakeHost {
  final Path cgroup;
  final Path proc;
  final boolean v2;

  FakeHost(Path dir, boolean v2) {
    this.cgroup = dir.resolve("cgroup");
    this.proc = dir.resolve("proc");
    this.v2 = v2;
    if (v2) {
      write(cgroup.resolve("cgroup.controllers"), "cpu memory pids");
      write(cgroup.resolve("cpu.stat"), "usage_usec 50000000\nuser_usec 1\n");
    } else {
      write(cgroup.resolve("cpuacct/cpuacct.usage"), "50000000000");
      write(cgroup.resolve("memory/memory.usage_in_bytes"), "4000000000");
      write(
          cgroup.resolve("memory/memory.stat"), "total_inactive_file 1000000000\ntotal_rss 2000\n");
    }
    write(proc.resolve("stat"), "cpu  100 0 100 5000 0 0 0 0 0 0\nbtime 1700000000\n");
    write(
        proc.resolve("meminfo"),
        "MemTotal:       8000000 kB\nMemFree:        2000000 kB\nInactive(file):  1000000 kB\n"
            + "AnonPages:       500000 kB\n");
    write(proc.resolve("sys/kernel/pid_max"), "4194304");
    write(proc.resolve("loadavg"), "0.10 0.20 0.30 2/345 6789");
    write(proc.resolve("net/dev"), netDev("ens3", 1000, 2000));
  }

  /** A container's cgroup as Docker's cgroupfs driver makes it, with one process {@code pid}. */
  void container(String id, long cpuNanos, long usage, long inactiveFile, long pid) {
    container("docker", id, cpuNanos, usage, inactiveFile, pid);
  }

  /** A container whose cgroup is {@code <parent>/<id>} below each hierarchy. */
  void container(String parent, String id, long cpuNanos, long usage, long inactiveFile, long pid) {
    if (v2) {
      Path d = cgroup.resolve(parent + "/" + id);
      write(d.resolve("cpu.stat"), "usage_usec " + cpuNanos / 1000 + "\n");
      write(d.resolve("memory.current"), Long.toString(usage));
      write(
          d.resolve("memory.stat"),
          "anon 100\ninactive_file " + inactiveFile + "\npgfault 7\npgmajfault 1\n");
      write(d.resolve("cgroup.procs"), pid + "\n");
    } else {
      write(
          cgroup.resolve("cpuacct/" + parent + "/" + id + "/cpuacct.usage"),
          Long.toString(cpuNanos));
      Path m = cgroup.resolve("memory/" + parent + "/" + id);
      write(m.resolve("memory.usage_in_bytes"), Long.toString(usage));
      write(
          m.resolve("memory.stat"),
          "rss 1\ntotal_rss 100\ntotal_inactive_file "
              + inactiveFile
              + "\ntotal_pgfault 7\ntotal_pgmajfault 1\n");
      write(m.resolve("cgroup.procs"), pid + "\n");
    }
  }

  /**
   * The {@code kubepods} cgroup at {@code rel} with its memory limit ({@code -1}: none), usage and
   * inactive file pages, and CPU time.
   */
  void kubepods(String rel, long limit, long usage, long inactiveFile, long cpuNanos) {
    if (v2) {
      Path d = cgroup.resolve(rel);
      write(d.resolve("memory.max"), limit < 0 ? "max\n" : limit + "\n");
      write(d.resolve("memory.current"), usage + "\n");
      write(
          d.resolve("memory.stat"),
          "anon 300\nfile 5\ninactive_file " + inactiveFile + "\npgfault 9\npgmajfault 2\n");
      write(d.resolve("cpu.stat"), "usage_usec " + cpuNanos / 1000 + "\n");
    } else {
      Path m = cgroup.resolve("memory/" + rel);
      write(
          m.resolve("memory.limit_in_bytes"),
          (limit < 0 ? Long.toString(9223372036854771712L) : Long.toString(limit)) + "\n");
      write(m.resolve("memory.usage_in_bytes"), usage + "\n");
      write(
          m.resolve("memory.stat"),
          "inactive_file 1\nrss 1\ntotal_rss 300\ntotal_inactive_file "
              + inactiveFile
              + "\ntotal_pgfault 9\ntotal_pgmajfault 2\n");
      write(cgroup.resolve("cpuacct/" + rel + "/cpuacct.usage"), cpuNanos + "\n");
    }
  }

  void network(long pid, long rx, long tx) {
    write(proc.resolve(pid + "/net/dev"), netDev("eth0", rx, tx));
  }

  private static String netDev(String name, long rx, long tx) {
    return "Inter-|   Receive                                                |  Transmit\n"
        + " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs"
        + " drop fifo colls carrier compressed\n"
        + "    lo:     999       9    0    0    0     0          0         0      999       9    0"
        + "    0    0     0       0          0\n"
        + "  "
        + name
        + ":  "
        + rx
        + "      10    1    0    0     0          0         0  "
        + tx
        + "      20    2    0    0     0       0          0\n";
  }

  static void write(Path file, String content) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
