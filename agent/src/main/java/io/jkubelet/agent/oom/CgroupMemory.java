package io.jkubelet.agent.oom;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads a container's memory cgroup for the OOM watch (see {@link MemoryCounters} for the files),
 * v1 or v2 as the root's layout says: v2 when it has {@code cgroup.controllers}.
 *
 * <p>The container's cgroup is looked for where Docker puts it, as the stats look for it: below its
 * pod's cgroup ({@code <pod>/<id>}, {@code <pod>/docker-<id>.scope}) when jkubelet gives pods
 * cgroups, else {@code docker/<id>} or {@code system.slice/docker-<id>.scope}.
 *
 * <p>Thread-safe: it keeps nothing; every read goes to the files.
 */
final class CgroupMemory {
  private static final List<String> LAYOUTS = List.of("docker/%s", "system.slice/docker-%s.scope");
  private static final List<String> POD_LAYOUTS = List.of("%s/%s", "%s/docker-%s.scope");

  /** No limit on v1: the kernel writes a page-rounded {@code LONG_MAX}. */
  private static final long UNLIMITED = Long.MAX_VALUE / 2;

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
    for (String rel : candidates(podUid, containerId)) {
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

  private List<String> candidates(String podUid, String id) {
    List<String> out = new ArrayList<>();
    if (!podUid.isEmpty()) {
      for (String pod : podCgroups.apply(podUid)) {
        String dir = pod.startsWith("/") ? pod.substring(1) : pod;
        for (String layout : POD_LAYOUTS) {
          out.add(String.format(layout, dir, id));
        }
      }
    }
    for (String layout : LAYOUTS) {
      out.add(String.format(layout, id));
    }
    return out;
  }

  static MemoryCounters readV1(Path dir) throws IOException {
    Map<String, Long> oom = keyValues(dir.resolve("memory.oom_control"));
    long limit = number(dir.resolve("memory.limit_in_bytes"));
    return new MemoryCounters(
        false,
        oom.getOrDefault("oom_kill", 0L),
        -1,
        number(dir.resolve("memory.failcnt")),
        number(dir.resolve("memory.usage_in_bytes")),
        limit >= UNLIMITED ? -1 : limit,
        optionalNumber(dir.resolve("memory.max_usage_in_bytes")));
  }

  static MemoryCounters readV2(Path dir) throws IOException {
    Map<String, Long> events = keyValues(dir.resolve("memory.events"));
    String max = Files.readString(dir.resolve("memory.max")).trim();
    return new MemoryCounters(
        true,
        events.getOrDefault("oom_kill", 0L),
        events.getOrDefault("oom", 0L),
        events.getOrDefault("max", 0L),
        number(dir.resolve("memory.current")),
        max.equals("max") ? -1 : Long.parseLong(max),
        optionalNumber(dir.resolve("memory.peak")));
  }

  private static long number(Path file) throws IOException {
    return Long.parseLong(Files.readString(file).trim());
  }

  private static long optionalNumber(Path file) throws IOException {
    return Files.exists(file) ? number(file) : -1;
  }

  /** A flat-keyed file: one {@code key value} per line. */
  private static Map<String, Long> keyValues(Path file) throws IOException {
    Map<String, Long> out = new HashMap<>();
    for (String line : Files.readAllLines(file)) {
      int sp = line.indexOf(' ');
      if (sp > 0) {
        try {
          out.put(line.substring(0, sp), Long.parseLong(line.substring(sp + 1).trim()));
        } catch (NumberFormatException e) {
          // not a number: not one of ours
        }
      }
    }
    return out;
  }
}
