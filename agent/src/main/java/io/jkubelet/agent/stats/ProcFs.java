package io.jkubelet.agent.stats;

import io.jkubelet.agent.util.KernelFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads what the summary needs from a proc file system (normally {@code /proc}): a network
 * namespace's interfaces, the host's memory, boot time and CPU time, and process limits. The
 * interfaces, boot time and CPU time are empty when their file is missing or malformed; memory and
 * processes, read for the eviction manager too ({@link NodeReader}), throw, so that the reason can
 * be logged. Stateless and thread-safe.
 */
final class ProcFs {
  /** USER_HZ: the unit of {@code /proc/stat} CPU times on every Linux architecture we run on. */
  private static final long USER_HZ = 100;

  private final Path proc;

  ProcFs(Path proc) {
    this.proc = proc;
  }

  /** The interfaces of the network namespace of {@code pid} (0: the host's), loopback left out. */
  List<Summary.InterfaceStats> interfaces(long pid) {
    Path file = pid == 0 ? proc.resolve("net/dev") : proc.resolve(pid + "/net/dev");
    List<Summary.InterfaceStats> out = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(file)) {
        int colon = line.indexOf(':');
        if (colon < 0) {
          continue; // the two header lines
        }
        String name = line.substring(0, colon).trim();
        String[] f = line.substring(colon + 1).trim().split("\\s+");
        if (name.equals("lo") || f.length < 16) {
          continue;
        }
        out.add(
            new Summary.InterfaceStats(
                name,
                Long.parseLong(f[0]),
                Long.parseLong(f[2]),
                Long.parseLong(f[8]),
                Long.parseLong(f[10])));
      }
    } catch (IOException | NumberFormatException e) {
      return List.of();
    }
    return out;
  }

  /**
   * {@code /proc/meminfo} in bytes, by key (MemTotal, MemFree, Inactive(file), ...).
   *
   * @throws IOException when it cannot be read, or has no {@code MemTotal} or {@code MemFree}
   */
  Map<String, Long> meminfo() throws IOException {
    Path file = proc.resolve("meminfo");
    Map<String, Long> out = new java.util.HashMap<>();
    for (String line : Files.readAllLines(file)) {
      int colon = line.indexOf(':');
      if (colon < 0) {
        continue;
      }
      String[] v = line.substring(colon + 1).trim().split("\\s+");
      try {
        long n = Long.parseLong(v[0]);
        out.put(line.substring(0, colon), v.length > 1 && v[1].equals("kB") ? n * 1024 : n);
      } catch (NumberFormatException e) {
        // not a figure
      }
    }
    if (!out.containsKey("MemTotal") || !out.containsKey("MemFree")) {
      throw new IOException("no MemTotal or MemFree in " + file);
    }
    return out;
  }

  /** The boot time (seconds since the epoch), from {@code btime} in {@code /proc/stat}. */
  Optional<Long> bootTime() {
    return stat().stream()
        .filter(l -> l.startsWith("btime "))
        .map(l -> Long.parseLong(l.substring(6).trim()))
        .findFirst();
  }

  /** The host's busy CPU time in nanoseconds, from the {@code cpu} line of {@code /proc/stat}. */
  Optional<Long> cpuNanos() {
    for (String line : stat()) {
      if (line.startsWith("cpu ")) {
        String[] f = line.trim().split("\\s+");
        long ticks = 0;
        // user nice system idle iowait irq softirq steal: all but idle and iowait.
        for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
          ticks += i < f.length ? Long.parseLong(f[i]) : 0;
        }
        return Optional.of(ticks * (1_000_000_000L / USER_HZ));
      }
    }
    return Optional.empty();
  }

  /** {@code kernel.pid_max}. */
  long pidMax() throws IOException {
    return KernelFiles.number(proc.resolve("sys/kernel/pid_max"));
  }

  /** The number of tasks the kernel schedules (the total in {@code /proc/loadavg}). */
  long tasks() throws IOException {
    Path file = proc.resolve("loadavg");
    String[] f = KernelFiles.line(file).split("\\s+");
    try {
      return Long.parseLong(f[3].substring(f[3].indexOf('/') + 1));
    } catch (RuntimeException e) {
      throw new IOException("no task count in " + file + ": " + e);
    }
  }

  private List<String> stat() {
    try {
      return Files.readAllLines(proc.resolve("stat"));
    } catch (IOException e) {
      return List.of();
    }
  }
}
