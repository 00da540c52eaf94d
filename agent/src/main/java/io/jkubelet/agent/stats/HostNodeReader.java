package io.jkubelet.agent.stats;

import io.jkubelet.agent.util.Guard;
import io.jkubelet.agent.util.StatFs;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's reading from this host's files, as upstream's summary gives it to its eviction
 * manager:
 *
 * <ul>
 *   <li>memory: the root cgroup's working set ({@code memory.usage_in_bytes} less {@code
 *       total_inactive_file}), available out of the node's memory; on cgroup v2, whose root has no
 *       {@code memory.current}, {@code MemTotal - MemFree - Inactive(file)} of {@code
 *       /proc/meminfo};
 *   <li>pods: {@code kubepods}' working set, available out of its limit;
 *   <li>fs: the root directory's file system; imageFs: the engine's root directory's (the root
 *       directory's while it is not known); from {@code statvfs(3)};
 *   <li>rlimit: {@code kernel.pid_max} and the tasks of {@code /proc/loadavg}.
 * </ul>
 *
 * Cgroup and proc files are read by {@link Cgroups} and {@link ProcFs}, which the summary's pods
 * use too. The engine's root directory is asked for until it answers, at most once a minute ({@link
 * EngineRoot}).
 *
 * <p>Thread-safe: {@code guard} guards the reads and what they update; the latest reading is
 * published through a volatile field.
 */
final class HostNodeReader implements NodeReader {
  private static final Logger log = LoggerFactory.getLogger(HostNodeReader.class);

  private final StatsOptions options;
  private final Clock clock;
  private final Cgroups cgroups;
  private final ProcFs proc;
  private final String pods;
  private final EngineRoot engineRoot;

  private final Guard guard = new Guard();
  private final Set<String> failing = new HashSet<>(); // guarded by guard
  private long memTotal; // guarded by guard
  private Instant lastFullRead; // guarded by guard

  private volatile NodeReading latest = NodeReading.NONE;

  HostNodeReader(StatsOptions options, Clock clock) {
    this.options = options;
    this.clock = clock;
    this.cgroups = new Cgroups(options.host().cgroupRoot(), StatsOptions.PodCgroups.NONE.byUid());
    this.proc = new ProcFs(options.host().procRoot());
    String root = options.podCgroups().root();
    this.pods = root == null ? null : root.startsWith("/") ? root.substring(1) : root;
    this.engineRoot = new EngineRoot(options.imageFsDir(), clock);
  }

  @Override
  public NodeReading read(boolean memoryOnly) {
    return guard.get(
        () -> {
          Instant now = clock.instant();
          NodeReading last = latest;
          NodeReading.Memory memory = attempt("memory", () -> nodeMemory(now));
          NodeReading.Memory podsMemory =
              pods == null ? null : attempt("pods", () -> podsMemory(now));
          NodeReading r;
          if (memoryOnly) {
            r =
                new NodeReading(
                    memory != null ? memory : last.memory(),
                    podsMemory != null ? podsMemory : last.pods(),
                    last.fs(),
                    last.imageFs(),
                    last.rlimit());
          } else {
            lastFullRead = now;
            r =
                new NodeReading(
                    memory,
                    podsMemory,
                    attempt("nodefs", () -> fs(options.rootDir(), now)),
                    attempt("imagefs", () -> fs(imageFsDir(), now)),
                    attempt(
                        "rlimit", () -> new NodeReading.Rlimit(now, proc.pidMax(), proc.tasks())));
          }
          latest = r;
          return r;
        });
  }

  @Override
  public NodeReading current(Duration maxAge) {
    return guard.get(
        () -> {
          if (lastFullRead == null
              || Duration.between(lastFullRead, clock.instant()).compareTo(maxAge) > 0) {
            return read(false);
          }
          return latest;
        });
  }

  private interface Reading<T> {
    T read() throws IOException;
  }

  private <T> T attempt(String what, Reading<T> r) {
    try {
      T out = r.read();
      if (failing.remove(what)) {
        log.info("Node stats: {} reads again", what);
      }
      return out;
    } catch (IOException | RuntimeException e) {
      if (failing.add(what)) {
        log.warn("Node stats: cannot read {}: {}", what, e.toString());
      }
      return null;
    }
  }

  private NodeReading.Memory nodeMemory(Instant now) throws IOException {
    Optional<Cgroups.Memory> root = cgroups.memory("");
    if (root.isPresent()) {
      Cgroups.Memory m = root.get();
      return new NodeReading.Memory(
          now,
          capacity(null) - m.workingSet(),
          m.workingSet(),
          m.usage(),
          m.rss(),
          m.pageFaults(),
          m.majorPageFaults());
    }
    Map<String, Long> info = proc.meminfo(); // the v2 root
    long usage = info.get("MemTotal") - info.get("MemFree");
    long workingSet = Math.max(0, usage - info.getOrDefault("Inactive(file)", 0L));
    return new NodeReading.Memory(
        now, capacity(info) - workingSet, workingSet, usage, info.get("AnonPages"), null, null);
  }

  /** The node's memory: the options' capacity, else {@code MemTotal}, read once. */
  private long capacity(Map<String, Long> meminfo) throws IOException {
    if (options.memoryCapacityBytes() > 0) {
      return options.memoryCapacityBytes();
    }
    if (memTotal == 0) {
      memTotal = (meminfo != null ? meminfo : proc.meminfo()).get("MemTotal");
    }
    return memTotal;
  }

  private NodeReading.Memory podsMemory(Instant now) throws IOException {
    Cgroups.Memory m =
        cgroups.memory(pods).orElseThrow(() -> new IOException("no memory cgroup " + pods));
    Optional<Long> limit = cgroups.memoryLimit(pods);
    return new NodeReading.Memory(
        now,
        limit.map(l -> l - m.workingSet()).orElse(null),
        m.workingSet(),
        m.usage(),
        m.rss(),
        m.pageFaults(),
        m.majorPageFaults());
  }

  private static NodeReading.Fs fs(Path dir, Instant now) throws IOException {
    StatFs fs = StatFs.ofExisting(dir);
    boolean inodes = fs.inodes() > 0;
    return new NodeReading.Fs(
        now,
        fs.availableBytes(),
        fs.capacityBytes(),
        fs.capacityBytes() - fs.freeBytes(),
        inodes ? fs.inodesFree() : null,
        inodes ? fs.inodes() : null);
  }

  /** The engine's root directory once it answers; the root directory's until then. */
  private Path imageFsDir() {
    Path dir = engineRoot.get();
    return dir != null ? dir : options.rootDir();
  }
}
