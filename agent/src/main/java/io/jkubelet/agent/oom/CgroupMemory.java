package io.jkubelet.agent.oom;

import static io.jkubelet.agent.util.KernelFiles.keyValues;
import static io.jkubelet.agent.util.KernelFiles.limit;
import static io.jkubelet.agent.util.KernelFiles.number;
import static io.jkubelet.agent.util.KernelFiles.optionalNumber;

import io.jkubelet.agent.util.ContainerCgroupPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads a container's memory cgroup for the OOM watch (see {@link MemoryCounters} for the files),
 * v1 or v2 as the root's layout says: v2 when it has {@code cgroup.controllers}.
 *
 * <p>The container's cgroup is looked for where Docker puts it, as the stats look for it: see
 * {@link ContainerCgroupPaths}.
 *
 * <p>Thread-safe: it keeps nothing; every read goes to the files.
 */
final class CgroupMemory {
  private final Path memoryRoot;
  private final boolean v2;
  private final Function<String, List<String>> podCgroups;

  /**
   * @param root the cgroup file system's mount ({@code /sys/fs/cgroup})
   * @param podCgroups by pod uid, the paths below a hierarchy where the pod's cgroup may be
   */
  CgroupMemory(Path root, Function<String, List<String>> podCgroups) {
    this.v2 = Files.exists(root.resolve("cgroup.controllers"));
    this.memoryRoot = v2 ? root : root.resolve("memory");
    this.podCgroups = podCgroups;
  }

  /** The counters of the container's cgroup; empty when it is not found or cannot be read. */
  Optional<MemoryCounters> read(String podUid, String containerId) {
    for (String rel :
        ContainerCgroupPaths.candidates(
            podUid.isEmpty() ? List.of() : podCgroups.apply(podUid), containerId)) {
      Path dir = memoryRoot.resolve(rel);
      if (Files.isDirectory(dir)) {
        try {
          return Optional.of(v2 ? readV2(dir) : readV1(dir));
        } catch (IOException | RuntimeException e) {
          return Optional.empty(); // removed between the look and the read
        }
      }
    }
    return Optional.empty();
  }

  static MemoryCounters readV1(Path dir) throws IOException {
    Map<String, Long> oom = keyValues(dir.resolve("memory.oom_control"));
    return new MemoryCounters(
        false,
        oom.getOrDefault("oom_kill", 0L),
        -1,
        number(dir.resolve("memory.failcnt")),
        number(dir.resolve("memory.usage_in_bytes")),
        limit(dir.resolve("memory.limit_in_bytes")).orElse(-1L),
        optionalNumber(dir.resolve("memory.max_usage_in_bytes")));
  }

  static MemoryCounters readV2(Path dir) throws IOException {
    Map<String, Long> events = keyValues(dir.resolve("memory.events"));
    return new MemoryCounters(
        true,
        events.getOrDefault("oom_kill", 0L),
        events.getOrDefault("oom", 0L),
        events.getOrDefault("max", 0L),
        number(dir.resolve("memory.current")),
        limit(dir.resolve("memory.max")).orElse(-1L),
        optionalNumber(dir.resolve("memory.peak")));
  }
}
