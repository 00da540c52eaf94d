package io.jkubelet.agent.stats;

import static io.jkubelet.agent.util.KernelFiles.keyValues;
import static io.jkubelet.agent.util.KernelFiles.number;

import io.jkubelet.agent.util.ContainerCgroupPaths;
import io.jkubelet.agent.util.KernelFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads CPU and memory usage from cgroup files under a cgroup root (normally {@code
 * /sys/fs/cgroup}), v1 or v2 as detected there: v2 when the root has {@code cgroup.controllers}.
 *
 * <p>A container's cgroup is found by its id where Docker puts it ({@link ContainerCgroupPaths}):
 * {@code docker/<id>} with the cgroupfs driver, {@code system.slice/docker-<id>.scope} with the
 * systemd driver (under each v1 controller, or directly under the v2 root); or below its pod's
 * cgroup, {@code <pod cgroup>/<id>} or {@code <pod cgroup>/docker-<id>.scope}, when jkubelet gives
 * pods cgroups. A custom {@code --cgroup-parent} of the engine is not searched. Found paths are
 * remembered by id.
 *
 * <p>Working set, as cAdvisor computes it: usage minus inactive file pages, never negative. The one
 * reader of cgroup memory usage: the summary's containers, pods and node, and through {@link
 * NodeReader} the eviction manager's memory signals (the OOM watch reads a container's OOM counters
 * itself, with the same {@link io.jkubelet.agent.util.KernelFiles}).
 *
 * <p>Thread-safe: the path cache is a concurrent map; every read goes to the files.
 */
final class Cgroups {
  enum Version {
    V1,
    V2
  }

  /**
   * One cgroup's usage.
   *
   * @param cpuNanos cumulative CPU time
   * @param rss anonymous memory (v1 {@code total_rss}, v2 {@code anon})
   */
  record Usage(
      long cpuNanos,
      long memoryUsage,
      long workingSet,
      long rss,
      long pageFaults,
      long majorPageFaults) {}

  private final Path root;
  private final Version version;
  private final Map<String, String> relByContainer = new ConcurrentHashMap<>();
  private final java.util.function.Function<String, List<String>> podCgroups;

  /**
   * @param podCgroups by pod uid, the paths below a hierarchy where the pod's cgroup may be
   */
  Cgroups(Path root, java.util.function.Function<String, List<String>> podCgroups) {
    this.podCgroups = podCgroups;
    this.root = root;
    this.version = Files.exists(root.resolve("cgroup.controllers")) ? Version.V2 : Version.V1;
  }

  Version version() {
    return version;
  }

  /** The container's usage; empty when its cgroup is not found (it is gone, or elsewhere). */
  Optional<Usage> container(String id) {
    return container("", id);
  }

  /** The usage of a container of the pod {@code podUid}, also looked for in the pod's cgroup. */
  Optional<Usage> container(String podUid, String id) {
    return relative(podUid, id).flatMap(this::read);
  }

  /**
   * The usage of the pod's own cgroup, when jkubelet gives pods cgroups: its sandbox's and
   * containers', the CPU time of those that exited kept. Empty without one, or where it has no
   * memory files.
   */
  Optional<Usage> pod(String podUid) {
    for (String pod : podCgroups.apply(podUid)) {
      String rel = pod.startsWith("/") ? pod.substring(1) : pod;
      if (Files.isDirectory(cpuDir(rel))) {
        return read(rel).filter(u -> u.memoryUsage() >= 0);
      }
    }
    return Optional.empty();
  }

  /** The pids of the container's cgroup, as {@code cgroup.procs} lists them. */
  List<Long> pids(String id) {
    return pids("", id);
  }

  /** The pids of the cgroup of a container of the pod {@code podUid}. */
  List<Long> pids(String podUid, String id) {
    Optional<String> rel = relative(podUid, id);
    if (rel.isEmpty()) {
      return List.of();
    }
    Path dir =
        version == Version.V2 ? root.resolve(rel.get()) : root.resolve("memory").resolve(rel.get());
    try {
      return Files.readAllLines(dir.resolve("cgroup.procs")).stream()
          .map(String::trim)
          .filter(s -> !s.isEmpty())
          .map(Long::parseLong)
          .toList();
    } catch (IOException | NumberFormatException e) {
      return List.of();
    }
  }

  /**
   * The CPU time of the cgroup at {@code rel} below each hierarchy ("" for the root): v1 {@code
   * cpuacct.usage}, v2 {@code usage_usec} of {@code cpu.stat}.
   */
  long cpuNanos(String rel) throws IOException {
    return version == Version.V2
        ? keyValues(root.resolve(rel).resolve("cpu.stat")).getOrDefault("usage_usec", 0L) * 1000
        : number(root.resolve("cpuacct").resolve(rel).resolve("cpuacct.usage"));
  }

  /**
   * A cgroup's memory.
   *
   * @param usage v1 {@code memory.usage_in_bytes}, v2 {@code memory.current}
   * @param workingSet the usage less the inactive file pages (v1 {@code total_inactive_file}, v2
   *     {@code inactive_file} of {@code memory.stat}), never negative
   * @param rss anonymous memory (v1 {@code total_rss}, v2 {@code anon})
   */
  record Memory(long usage, long workingSet, long rss, long pageFaults, long majorPageFaults) {}

  /**
   * The memory of the cgroup at {@code rel} below each hierarchy ("" for the root). Empty for the
   * v2 root, which has no {@code memory.current} (its figures are in {@code /proc/meminfo}).
   *
   * @throws IOException when a file cannot be read or parsed
   */
  Optional<Memory> memory(String rel) throws IOException {
    if (version == Version.V2) {
      Path dir = root.resolve(rel);
      Path current = dir.resolve("memory.current");
      if (rel.isEmpty() && !Files.exists(current)) {
        return Optional.empty();
      }
      long usage = number(current);
      Map<String, Long> stat = keyValues(dir.resolve("memory.stat"));
      return Optional.of(
          new Memory(
              usage,
              Math.max(0, usage - stat.getOrDefault("inactive_file", 0L)),
              stat.getOrDefault("anon", 0L),
              stat.getOrDefault("pgfault", 0L),
              stat.getOrDefault("pgmajfault", 0L)));
    }
    Path mem = root.resolve("memory").resolve(rel);
    long usage = number(mem.resolve("memory.usage_in_bytes"));
    Map<String, Long> stat = keyValues(mem.resolve("memory.stat"));
    return Optional.of(
        new Memory(
            usage,
            Math.max(0, usage - pick(stat, "total_inactive_file", "inactive_file")),
            pick(stat, "total_rss", "rss"),
            pick(stat, "total_pgfault", "pgfault"),
            pick(stat, "total_pgmajfault", "pgmajfault")));
  }

  /**
   * The memory limit of the cgroup at {@code rel}: v1 {@code memory.limit_in_bytes}, v2 {@code
   * memory.max}; empty when it has none (v2 {@code max}, v1's page-rounded {@code LONG_MAX}).
   */
  Optional<Long> memoryLimit(String rel) throws IOException {
    return KernelFiles.limit(
        version == Version.V2
            ? root.resolve(rel).resolve("memory.max")
            : root.resolve("memory").resolve(rel).resolve("memory.limit_in_bytes"));
  }

  private Optional<String> relative(String podUid, String id) {
    String known = relByContainer.get(id);
    if (known != null) {
      if (Files.isDirectory(cpuDir(known))) {
        return Optional.of(known);
      }
      relByContainer.remove(id);
    }
    List<String> candidates =
        ContainerCgroupPaths.candidates(
            podUid.isEmpty() ? List.of() : podCgroups.apply(podUid), id);
    for (String rel : candidates) {
      if (Files.isDirectory(cpuDir(rel))) {
        relByContainer.put(id, rel);
        return Optional.of(rel);
      }
    }
    return Optional.empty();
  }

  /** Forgets the paths of containers not in {@code live}. */
  void retain(java.util.Set<String> live) {
    relByContainer.keySet().retainAll(live);
  }

  private Path cpuDir(String rel) {
    return version == Version.V2 ? root.resolve(rel) : root.resolve("cpuacct").resolve(rel);
  }

  private Optional<Usage> read(String rel) {
    try {
      Optional<Memory> m = memory(rel);
      if (m.isEmpty()) {
        return Optional.empty();
      }
      Memory mem = m.get();
      return Optional.of(
          new Usage(
              cpuNanos(rel),
              mem.usage(),
              mem.workingSet(),
              mem.rss(),
              mem.pageFaults(),
              mem.majorPageFaults()));
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // gone between listing and reading, or not a cgroup
    }
  }

  private static long pick(Map<String, Long> stat, String first, String second) {
    Long v = stat.get(first);
    return v != null ? v : stat.getOrDefault(second, 0L);
  }
}
