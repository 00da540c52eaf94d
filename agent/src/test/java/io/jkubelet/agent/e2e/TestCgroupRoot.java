package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A cgroup root of a test's own ({@code --cgroup-root}) under every cgroup v1 hierarchy, so the
 * pods' {@code kubepods} never touches the host's; removed with everything below it on {@link
 * #close()}. Skips the test on cgroup v2.
 */
final class TestCgroupRoot implements AutoCloseable {
  static final Path CGROUP_FS = Path.of("/sys/fs/cgroup");

  private final String root = "/jkubelet-" + UUID.randomUUID().toString().substring(0, 8);
  private boolean made;

  /** {@code --cgroup-root}'s value, e.g. {@code /jkubelet-1a2b3c4d}. */
  String path() {
    return root;
  }

  /** {@code kubepods}' directory under the memory hierarchy. */
  Path kubepodsMemory() {
    return CGROUP_FS.resolve("memory").resolve(root.substring(1)).resolve("kubepods");
  }

  /** {@code kubepods}' limit minus its working set, as jkubelet reads it. */
  long kubepodsAvailable() throws IOException {
    Path dir = kubepodsMemory();
    long limit = firstNumber(dir.resolve("memory.limit_in_bytes"));
    long usage = firstNumber(dir.resolve("memory.usage_in_bytes"));
    long inactive = 0;
    for (String line : Files.readAllLines(dir.resolve("memory.stat"))) {
      if (line.startsWith("total_inactive_file ")) {
        inactive = Long.parseLong(line.substring(line.indexOf(' ') + 1).trim());
      }
    }
    return limit - Math.max(0, usage - inactive);
  }

  private static long firstNumber(Path file) throws IOException {
    // By lines: the JDK reads only the first byte of some kernel files otherwise.
    return Long.parseLong(Files.readAllLines(file).get(0).trim());
  }

  /**
   * Makes the root in every hierarchy, as upstream requires of {@code --cgroup-root}; cpuset gets
   * its parent's cpus and mems, which the kernel leaves empty.
   */
  TestCgroupRoot make() throws IOException {
    assumeThat(CGROUP_FS.resolve("cgroup.controllers"))
        .as("cgroup v1 (this test reads v1 files)")
        .doesNotExist();
    for (Path h : hierarchies()) {
      Path dir = Files.createDirectories(h.resolve(root.substring(1)));
      made = true;
      if (h.getFileName().toString().equals("cpuset")) {
        Files.writeString(dir.resolve("cpuset.cpus"), Files.readString(h.resolve("cpuset.cpus")));
        Files.writeString(dir.resolve("cpuset.mems"), Files.readString(h.resolve("cpuset.mems")));
      }
    }
    return this;
  }

  /** Removes the tree, deepest first, waiting for the engine to remove its containers' cgroups. */
  @Override
  public void close() {
    if (!made) {
      return;
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              for (Path h : hierarchies()) {
                removeTree(h.resolve(root.substring(1)));
              }
            });
  }

  private static List<Path> hierarchies() throws IOException {
    try (Stream<Path> s = Files.list(CGROUP_FS)) {
      return s.filter(Files::isDirectory).filter(p -> !Files.isSymbolicLink(p)).toList();
    }
  }

  private static void removeTree(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    List<Path> dirs;
    try (Stream<Path> s = Files.walk(dir)) {
      dirs = s.filter(Files::isDirectory).sorted(Comparator.reverseOrder()).toList();
    }
    for (Path d : dirs) {
      Files.delete(d);
    }
  }
}
