package io.jkubelet.agent.stats;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads what the summary needs from a proc file system (normally {@code /proc}): a network
 * namespace's interfaces, the host's memory, boot time and CPU time, and process limits. Every
 * method returns empty or null when its file is missing or malformed. Stateless and thread-safe.
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

  /** {@code /proc/meminfo} in bytes, by key (MemTotal, MemFree, Inactive(file), ...). */
  Map<String, Long> meminfo() {
    try {
      Map<String, Long> out = new java.util.HashMap<>();
      for (String line : Files.readAllLines(proc.resolve("meminfo"))) {
        int colon = line.indexOf(':');
        if (colon < 0) {
          continue;
        }
        String[] v = line.substring(colon + 1).trim().split("\\s+");
        long n = Long.parseLong(v[0]);
        out.put(line.substring(0, colon), v.length > 1 && v[1].equals("kB") ? n * 1024 : n);
      }
      return out;
    } catch (IOException | RuntimeException e) {
      return Map.of();
    }
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

  /**
   * {@code kernel.pid_max}. NOTE: read by lines: the JDK's {@code Files.readString} returns only
   * its first character.
   */
  Long pidMax() {
    try {
      return Long.parseLong(Files.readAllLines(proc.resolve("sys/kernel/pid_max")).get(0).trim());
    } catch (IOException | NumberFormatException | IndexOutOfBoundsException e) {
      return null;
    }
  }

  /** The number of tasks the kernel schedules (the total in {@code /proc/loadavg}). */
  Long tasks() {
    try {
      String[] f = Files.readString(proc.resolve("loadavg")).trim().split("\\s+");
      return Long.parseLong(f[3].substring(f[3].indexOf('/') + 1));
    } catch (IOException | RuntimeException e) {
      return null;
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
