package io.jkubelet.agent.eviction;

import io.jkubelet.agent.util.StatFs;
import io.jkubelet.config.EvictionSettings.Signal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The signals read from this host, as upstream's summary gives them to its eviction manager:
 *
 * <ul>
 *   <li>{@code memory.available}: {@code MemTotal} minus the root cgroup's working set ({@code
 *       memory.usage_in_bytes} minus {@code total_inactive_file}); on cgroup v2, whose root has no
 *       usage file, {@code MemTotal - MemFree - Inactive(file)} of {@code /proc/meminfo};
 *   <li>{@code allocatableMemory.available}: {@code kubepods}' limit minus its working set; not
 *       read while it has no limit;
 *   <li>{@code nodefs.*}: the file system of the root directory; {@code imagefs.*}: that of the
 *       engine's data root (the root directory's when it is not known); from {@code statvfs(3)};
 *   <li>{@code pid.available}: {@code kernel.pid_max} minus the tasks of {@code /proc/loadavg}.
 * </ul>
 *
 * A file that cannot be read leaves its signal out, logged once until it reads again. Called from
 * the eviction manager's thread only.
 */
public final class HostSignals implements Readers.SignalReader {
  private static final Logger log = LoggerFactory.getLogger(HostSignals.class);

  /** No memory limit: cgroup v1 writes a page-rounded {@code LONG_MAX}. */
  private static final long UNLIMITED = Long.MAX_VALUE / 2;

  private final Path cgroupFs;
  private final boolean v2;
  private final String kubepods;
  private final Path proc;
  private final Path rootDir;
  private final Supplier<Path> imageFsDir;
  private final Clock clock;
  private final Set<String> failing = new HashSet<>();
  private long memTotal;
  private long pidMax;

  /**
   * @param cgroupFs where the cgroup file system is mounted ({@code /sys/fs/cgroup})
   * @param kubepods {@code kubepods}' path below each hierarchy, e.g. {@code /kubepods}; null
   *     without {@code cgroupsPerQOS}
   * @param proc {@code /proc}
   * @param imageFsDir the engine's data root, or null when unknown; asked at each full read
   */
  public HostSignals(
      Path cgroupFs,
      String kubepods,
      Path proc,
      Path rootDir,
      Supplier<Path> imageFsDir,
      Clock clock) {
    this.cgroupFs = cgroupFs;
    this.v2 = Files.exists(cgroupFs.resolve("cgroup.controllers"));
    this.kubepods = kubepods;
    this.proc = proc;
    this.rootDir = rootDir;
    this.imageFsDir = imageFsDir;
    this.clock = clock;
  }

  @Override
  public Map<Signal, Observation> read(boolean memoryOnly) {
    Map<Signal, Observation> out = new EnumMap<>(Signal.class);
    Instant now = clock.instant();
    attempt("memory.available", () -> memory(out, now));
    if (kubepods != null) {
      attempt("allocatableMemory.available", () -> allocatable(out, now));
    }
    if (memoryOnly) {
      return out;
    }
    attempt(
        "nodefs", () -> fs(out, rootDir, Signal.NODEFS_AVAILABLE, Signal.NODEFS_INODES_FREE, now));
    attempt(
        "imagefs",
        () -> {
          Path image = imageFsDir.get();
          fs(
              out,
              image == null ? rootDir : image,
              Signal.IMAGEFS_AVAILABLE,
              Signal.IMAGEFS_INODES_FREE,
              now);
        });
    attempt("pid.available", () -> pids(out, now));
    return out;
  }

  private interface Reading {
    void run() throws IOException;
  }

  private void attempt(String what, Reading r) {
    try {
      r.run();
      if (failing.remove(what)) {
        log.info("Eviction signals: {} reads again", what);
      }
    } catch (IOException | RuntimeException e) {
      if (failing.add(what)) {
        log.warn("Eviction signals: cannot read {}: {}", what, e.toString());
      }
    }
  }

  private void memory(Map<Signal, Observation> out, Instant now) throws IOException {
    Map<String, Long> meminfo = null;
    if (memTotal == 0 || v2) {
      meminfo = meminfo();
      memTotal = meminfo.get("MemTotal");
    }
    long workingSet;
    if (v2) {
      long used = memTotal - meminfo.get("MemFree");
      workingSet = Math.max(0, used - meminfo.getOrDefault("Inactive(file)", 0L));
    } else {
      Path root = cgroupFs.resolve("memory");
      long usage = number(root.resolve("memory.usage_in_bytes"));
      long inactive =
          keyValues(root.resolve("memory.stat")).getOrDefault("total_inactive_file", 0L);
      workingSet = Math.max(0, usage - inactive);
    }
    out.put(Signal.MEMORY_AVAILABLE, new Observation(memTotal - workingSet, memTotal, now));
  }

  private void allocatable(Map<Signal, Observation> out, Instant now) throws IOException {
    String rel = kubepods.startsWith("/") ? kubepods.substring(1) : kubepods;
    long limit;
    long usage;
    long inactive;
    if (v2) {
      Path dir = cgroupFs.resolve(rel);
      String max = Files.readAllLines(dir.resolve("memory.max")).get(0).trim();
      limit = max.equals("max") ? Long.MAX_VALUE : Long.parseLong(max);
      usage = number(dir.resolve("memory.current"));
      inactive = keyValues(dir.resolve("memory.stat")).getOrDefault("inactive_file", 0L);
    } else {
      Path dir = cgroupFs.resolve("memory").resolve(rel);
      limit = number(dir.resolve("memory.limit_in_bytes"));
      usage = number(dir.resolve("memory.usage_in_bytes"));
      inactive = keyValues(dir.resolve("memory.stat")).getOrDefault("total_inactive_file", 0L);
    }
    if (limit >= UNLIMITED) {
      return;
    }
    long workingSet = Math.max(0, usage - inactive);
    out.put(Signal.ALLOCATABLE_MEMORY_AVAILABLE, new Observation(limit - workingSet, limit, now));
  }

  private void fs(Map<Signal, Observation> out, Path dir, Signal bytes, Signal inodes, Instant now)
      throws IOException {
    StatFs fs = StatFs.of(dir);
    out.put(bytes, new Observation(fs.availableBytes(), fs.capacityBytes(), now));
    if (fs.inodes() > 0) {
      out.put(inodes, new Observation(fs.inodesFree(), fs.inodes(), now));
    }
  }

  private void pids(Map<Signal, Observation> out, Instant now) throws IOException {
    if (pidMax == 0) {
      pidMax = Long.parseLong(Files.readAllLines(proc.resolve("sys/kernel/pid_max")).get(0).trim());
    }
    String[] loadavg = Files.readAllLines(proc.resolve("loadavg")).get(0).trim().split("\\s+");
    long tasks = Long.parseLong(loadavg[3].substring(loadavg[3].indexOf('/') + 1));
    out.put(Signal.PID_AVAILABLE, new Observation(pidMax - tasks, pidMax, now));
  }

  private Map<String, Long> meminfo() throws IOException {
    Map<String, Long> m = new HashMap<>();
    for (String line : Files.readAllLines(proc.resolve("meminfo"))) {
      String[] f = line.split("[:\\s]+");
      if (f.length >= 2) {
        long v = Long.parseLong(f[1]);
        m.put(f[0], f.length >= 3 && f[2].equals("kB") ? v * 1024 : v);
      }
    }
    if (!m.containsKey("MemTotal") || !m.containsKey("MemFree")) {
      throw new IOException("no MemTotal or MemFree in " + proc.resolve("meminfo"));
    }
    return m;
  }

  /** NOTE: read by lines; the JDK reads only the first byte of some kernel files otherwise. */
  static long number(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    if (lines.isEmpty()) {
      throw new IOException(file + " is empty");
    }
    return Long.parseLong(lines.get(0).trim());
  }

  static Map<String, Long> keyValues(Path file) throws IOException {
    Map<String, Long> m = new HashMap<>();
    for (String line : Files.readAllLines(file)) {
      int sp = line.indexOf(' ');
      if (sp > 0) {
        try {
          m.put(line.substring(0, sp), Long.parseLong(line.substring(sp + 1).trim()));
        } catch (NumberFormatException e) {
          // not a counter
        }
      }
    }
    return m;
  }
}
